// The probe on a real (tiny, random) model: measure() against the attention weights of window()
// and row(), captured probes against recomputed ones, and bounds on what a view may ask for.

#include <catch2/catch.hpp>

#include <unistd.h>

#include "core/common/error.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "core/model/model_loader.h"
#include "core/probe/attention_probe.h"

using namespace studio;

namespace {

std::shared_ptr<model::LoadedModel> tinyModel() {
  const model::ModelConfig config = model::ModelConfig::fromJson(
      {{"model_type", "qwen3"}, {"vocab_size", 50}, {"hidden_size", 32},
       {"intermediate_size", 40}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
       {"num_key_value_heads", 2}, {"head_dim", 8}, {"rms_norm_eps", 1e-6},
       {"rope_theta", 10000.0}, {"max_position_embeddings", 512}, {"tie_word_embeddings", true}});
  auto tensors = model::randomTensors(config, 5);
  // Larger query/key weights than the init's 0.02 so the attention is far from uniform.
  for (auto& [name, tensor] : tensors) {
    if (name.find("q_proj") != std::string::npos || name.find("k_proj") != std::string::npos) {
      tensor = tensor * 40;
    }
  }
  return model::buildModel(config, tensors);
}

struct Prefilled {
  std::shared_ptr<model::LoadedModel> model;
  std::vector<std::int64_t> ids;
  model::ModelState cache{2};
};

void prefill(Prefilled& p, std::int64_t length) {
  p.model = tinyModel();
  for (std::int64_t i = 0; i < length; ++i) p.ids.push_back((i * 13 + 7) % 50);
  torch::NoGradGuard no_grad;
  model::prefill(*p.model->lm, p.cache, p.ids);
}

}  // namespace

TEST_CASE("attention probe: target mass equals the summed weights of the heatmap window",
          "[probe]") {
  Prefilled p;
  prefill(p, 60);
  probe::AttentionProbe probe(*p.model->lm, p.cache, p.ids);
  const std::vector<Span> targets{{10, 14}, {30, 31}};
  const std::vector<std::int64_t> positions{20, 59};
  const probe::ProbeResult result = probe.measure(positions, targets);
  CHECK(result.num_layers == 2);
  CHECK(result.num_heads == 4);
  REQUIRE(result.heads.size() == 8);
  CHECK(result.context_length == 60);
  double mean = 0;
  for (const auto& head : result.heads) {
    const torch::Tensor weights =
        probe.window(head.layer, head.head, {20, 60}, {0, 60}).to(torch::kFloat64);  // [40, 60]
    REQUIRE(head.queries.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
      const torch::Tensor row = weights[positions[i] - 20];
      CHECK(row.sum().item<double>() == Approx(1.0).margin(1e-5));
      const double mass = row.slice(0, 10, 14).sum().item<double>() +
                          (positions[i] >= 30 ? row[30].item<double>() : 0.0);
      CHECK(head.queries[i].mass == Approx(mass).margin(1e-5));
      mean += head.queries[i].mass;
    }
  }
  CHECK(result.mean_mass == Approx(mean / 16).margin(1e-9));
  CHECK(result.mean_mass_per_layer.size() == 2);
}

TEST_CASE("attention probe: rows, head and layer averages, causal zeros", "[probe]") {
  Prefilled p;
  prefill(p, 40);
  probe::AttentionProbe probe(*p.model->lm, p.cache, p.ids);
  const torch::Tensor row = probe.row(39, 1, 2);  // [40]
  REQUIRE(row.size(0) == 40);
  CHECK(torch::allclose(row, probe.window(1, 2, {39, 40}, {0, 40})[0], 1e-5, 1e-6));
  torch::Tensor sum = torch::zeros({40});
  for (int h = 0; h < 4; ++h) sum += probe.row(39, 1, h);
  CHECK(torch::allclose(probe.row(39, 1, -1), sum / 4, 1e-5, 1e-6));
  const torch::Tensor window = probe.window(0, 0, {5, 10}, {0, 40});
  CHECK(window.slice(1, 11, 40).abs().sum().item<double>() == 0);  // keys after every query
}

TEST_CASE("attention probe: a prefill's captured answer query gives the recomputed probe",
          "[probe]") {
  const auto model = tinyModel();
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 33; ++i) ids.push_back((i * 11 + 2) % 50);
  model::ModelState cache(2);
  model::ForwardCapture capture;
  capture.query_positions = {32};
  model::PrefillOptions options;
  options.chunk = 8;
  options.capture = &capture;
  torch::NoGradGuard no_grad;
  model::prefill(*model->lm, cache, ids, options);
  const std::vector<Span> targets{{4, 9}};
  const auto captured = probe::measureCapture(*model->lm, cache, capture, targets);
  const auto recomputed = probe::AttentionProbe(*model->lm, cache, ids).measure({32}, targets);
  CHECK(captured.mean_mass == Approx(recomputed.mean_mass).margin(1e-6));
  CHECK(captured.mean_margin == Approx(recomputed.mean_margin).margin(1e-5));
}

TEST_CASE("attention probe: out-of-range requests are errors naming the argument", "[probe]") {
  Prefilled p;
  prefill(p, 20);
  probe::AttentionProbe probe(*p.model->lm, p.cache, p.ids);
  CHECK_THROWS_AS(probe.measure({20}, {{0, 1}}), Error);
  CHECK_THROWS_AS(probe.window(2, 0, {0, 5}, {0, 5}), Error);
  CHECK_THROWS_AS(probe.window(0, 4, {0, 5}, {0, 5}), Error);
  CHECK_THROWS_AS(probe.window(0, 0, {0, probe::kMaxWindowQueries + 1}, {0, 5}), Error);
  CHECK_THROWS_AS(probe.row(25, 0, 0), Error);
}

// What SR-TTT's training tells a forward pass (sr_ttt_supervision.h, v2's train_stage1/2
// arguments): the cache off is the backbone alone, forced tokens enter the cache in their window,
// and the oracle mass is the read weight the answer queries put on their sources' slots, the
// same weights the routing trace reports, with gradients into the cache read.

#include <catch2/catch.hpp>

#include <algorithm>

#include "core/model/model_loader.h"
#include "core/model/sr_ttt_block.h"
#include "core/model/sr_ttt_supervision.h"
#include "model_test_helpers.h"

using namespace studio;
using studio::model_test::fixtureModel;

namespace {

torch::Tensor supervisionIds() {
  // [1, 36]: four windows of 8 close, the fifth, [32, 36), stays open.
  return torch::arange(3, 39, torch::kInt64).view({1, 36});
}

torch::Tensor forwardWith(model::LoadedModel& loaded, const torch::Tensor& ids,
                          model::SrTttSupervision* supervision,
                          model::RoutingTrace* trace = nullptr) {
  model::ForwardContext context;
  context.mode = model::AttentionMode::Full;
  context.sr_ttt_supervision = supervision;
  context.routing = trace;
  return loaded.lm->logits(loaded.lm->forward(ids, context));  // [1, T, V]
}

bool contains(const std::vector<std::int64_t>& v, std::int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST_CASE("sr-ttt supervision: the cache off is the block with α = 0", "[model][sr_ttt]") {
  const auto loaded = model::loadModel(fixtureModel("sr-ttt-tiny"));
  const torch::Tensor ids = supervisionIds();
  model::SrTttSupervision off;
  off.cache = false;
  const torch::Tensor without_cache = forwardWith(*loaded, ids, &off);
  const torch::Tensor with_cache = forwardWith(*loaded, ids, nullptr);
  CHECK_FALSE(torch::equal(without_cache, with_cache));  // the fixture's gates are not 0
  {
    torch::NoGradGuard no_grad;
    for (auto& item : loaded->lm->named_parameters()) {
      if (item.key().find("gate_param") != std::string::npos) item.value().fill_(0.0);
    }
  }
  CHECK(torch::equal(without_cache, forwardWith(*loaded, ids, nullptr)));
  CHECK(off.oracle_mass.empty());
  CHECK(off.forced_tokens == 0);
}

TEST_CASE("sr-ttt supervision: forced tokens enter the cache at their window's end",
          "[model][sr_ttt]") {
  const auto loaded = model::loadModel(fixtureModel("sr-ttt-tiny"));
  const torch::Tensor ids = supervisionIds();
  for (const bool force : {false, true}) {
    model::SrTttSupervision supervision;
    supervision.force_insert = force;
    supervision.sequences.resize(1);
    supervision.sequences[0].forced = {2, 3, 34};  // 34: in the open last window
    model::RoutingTrace trace;
    forwardWith(*loaded, ids, &supervision, &trace);
    CHECK(supervision.forced_tokens == 2 * 2);  // 2 layers × the 2 in closed windows
    for (const auto& layer : trace.layers) {
      const auto& first = layer.windows.front();  // positions [0, 8)
      for (const std::int64_t p : {2, 3}) {
        const bool routed = contains(first.routed, p);
        CHECK(contains(first.inserted, p) == (force || routed));
        CHECK(contains(layer.cache, p) == (force || routed));
      }
      CHECK_FALSE(contains(layer.cache, 34));
    }
  }
}

TEST_CASE("sr-ttt supervision: the oracle mass is the answer queries' read weight on their sources",
          "[model][sr_ttt]") {
  const auto loaded = model::loadModel(fixtureModel("sr-ttt-tiny"));
  const torch::Tensor ids = supervisionIds();
  for (auto& item : loaded->lm->named_parameters()) {
    if (item.key().find("cache_attn.W_qc") != std::string::npos) item.value().set_requires_grad(true);
  }
  model::SrTttSupervision supervision;
  supervision.force_insert = true;
  supervision.sequences.resize(1);
  auto& s = supervision.sequences[0];
  s.forced = {2, 3};
  s.answer_queries = {25, 26, 33};  // 33: in the open last window, still read
  s.answer_sources = {2, 3, 9};     // 9: never forced; resident only if routed
  model::RoutingTrace trace;
  trace.read_positions = {25, 26};
  forwardWith(*loaded, ids, &supervision, &trace);

  // Two layers; in each, the window [24, 32) reads both sources (forced into the cache at 8) and
  // the open window [32, 36) reads query 33, whose source 9 is resident only if the filter routed
  // it.
  REQUIRE(supervision.oracle_mass.size() >= 2);
  CHECK(supervision.answer_queries_seen == 2 * 3);
  std::size_t mass_index = 0;
  for (std::size_t layer = 0; layer < trace.layers.size(); ++layer) {
    const torch::Tensor mass = supervision.oracle_mass[mass_index++];  // [H, 2]
    REQUIRE(mass.sizes() == torch::IntArrayRef({4, 2}));
    const auto& reads = trace.layers[layer].reads;
    REQUIRE(reads.size() == 2);
    for (std::int64_t i = 0; i < 2; ++i) {
      const auto& r = reads[static_cast<std::size_t>(i)];
      const auto slot = std::find(r.cached.begin(), r.cached.end(), s.answer_sources[i]);
      REQUIRE(slot != r.cached.end());
      const double traced = r.weights[static_cast<std::size_t>(slot - r.cached.begin())];
      CHECK(mass.select(1, i).mean().item<double>() == Approx(traced).epsilon(1e-6));
    }
    if (contains(trace.layers[layer].cache, 9)) {
      const torch::Tensor late = supervision.oracle_mass[mass_index++];  // [H, 1]
      CHECK(late.size(1) == 1);
    }
  }
  CHECK(mass_index == supervision.oracle_mass.size());

  torch::Tensor total = torch::zeros({});
  for (const auto& m : supervision.oracle_mass) total = total - (m + 1e-6).log().mean();
  total.backward();
  for (auto& item : loaded->lm->named_parameters()) {
    if (item.key().find("cache_attn.W_qc") == std::string::npos) continue;
    REQUIRE(item.value().grad().defined());
    CHECK(item.value().grad().abs().sum().item<double>() > 0);
  }
}

// qTTT on CUDA (hidden: run on purpose on a GPU machine with
// `build-cuda/tests/test_methods "[.gpu]"`): steps replayed from a captured CUDA graph
// (STUDIO_QTTT_GRAPH=on, query_adapter.h) against steps launched op by op.

#include <catch2/catch.hpp>

#include <optional>

#include "core/common/torch_compat.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "core/model/model_state.h"
#include "core/task/seeded_rng.h"
#include "plugins/method_qttt/query_adapter.h"
#include "support/scoped_environment.h"
#include "support/tiny_model_folder.h"

using namespace studio;

namespace {

// (a − a0) against (b − b0): how far two updates of the same start differ.
double updateRelativeError(const torch::Tensor& a, const torch::Tensor& b,
                           const torch::Tensor& start) {
  const auto da = (a - start).to(torch::kFloat64), db = (b - start).to(torch::kFloat64);
  return ((da - db).norm() / db.norm().clamp_min(1e-30)).item<double>();
}

}  // namespace

TEST_CASE("qTTT steps replayed from a CUDA graph make the updates of steps run op by op",
          "[methods][qttt][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  // The tiny test model's shape with heads of 32: the dQ kernel's smallest (its heads of 8 are
  // below it).
  nlohmann::json json = test::TinyModelFolder("qttt-graph-gpu").config().toJson();
  json["hidden_size"] = 128;
  json["intermediate_size"] = 256;
  json["head_dim"] = 32;
  json["torch_dtype"] = "bfloat16";
  const auto config = model::ModelConfig::fromJson(json);
  model::LoadOptions load;
  load.device = "cuda";
  load.dtype = "bf16";
  const auto loaded = model::buildModel(config, model::randomTensors(config, 11), load);
  model::CausalLMImpl& lm = *loaded->lm;
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 400; ++i) ids.push_back(32 + (i * 37 + i / 7) % 90);
  model::ModelState cache(lm.numLayers());
  model::prefill(lm, cache, ids);

  plugins::QueryAdapterOptions options;
  options.learning_rate = 3e-4;
  // The attention's backward is flash's, then the dQ kernel (over the whole cache in the graph,
  // masked by the positions it reads on the device).
  for (const bool dq_kernel : {false, true}) {
    INFO((dq_kernel ? "the dQ kernel" : "flash's backward"));
    std::optional<test::ScopedEnvironment> kernel;
    if (dq_kernel) kernel.emplace("STUDIO_SPAN_BACKWARD", "kernel");
    plugins::QueryAdapter graphed(lm, options);
    plugins::QueryAdapter eager(lm, options);
    std::vector<torch::Tensor> initial;
    for (const auto& master : eager.masters()) initial.push_back(master.detach().clone());
    task::SeededRng spans = task::SeededRng::stream(4, "qttt_graph_gpu");
    // Two steps op by op, a capture, then replays; a new span length captures again (after two
    // more steps op by op: the step's tensors are new).
    const std::vector<std::int64_t> lengths = {32, 32, 32, 32, 32, 32, 32, 32, 17, 17, 17, 17, 17};
    for (std::size_t step = 0; step < lengths.size(); ++step) {
      const std::int64_t k = lengths[step];
      const std::int64_t start =
          spans.uniformInt(1, static_cast<std::int64_t>(ids.size()) - k) - 1;
      INFO("step " << step << ": span [" << start << ", " << start + k << ")");
      plugins::SpanStepStats a;
      {
        const test::ScopedEnvironment graph("STUDIO_QTTT_GRAPH", "on");
        a = graphed.step(cache, ids, start, k);
      }
      const plugins::SpanStepStats b = eager.step(cache, ids, start, k);
      CHECK(a.loss == Approx(b.loss).epsilon(1e-2));
      CHECK(a.grad_norm == Approx(b.grad_norm).epsilon(5e-2));
      for (std::size_t layer = 0; layer < initial.size(); ++layer) {
        INFO("layer " << layer);
        CHECK(updateRelativeError(graphed.masters()[layer], eager.masters()[layer],
                                  initial[layer]) < 5e-2);
      }
    }
    CHECK(graphed.graphFailure().empty());
    CHECK(graphed.graphReplays() == 13 - 4);
  }
}

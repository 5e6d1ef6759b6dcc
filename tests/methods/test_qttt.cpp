// qTTT (Algorithm 1): what it may change and what it must not, its span path against a full
// forward, its gradient against finite differences, and its loss going down.

#include <catch2/catch.hpp>

#include <cmath>

#include "core/common/remove_tree.h"
#include "core/engine/method.h"
#include "core/engine/model_cache.h"
#include "core/engine/run_executor.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "core/task/seeded_rng.h"
#include "methods_test_helpers.h"
#include "plugins/builtin_plugins.h"
#include "plugins/method_qttt/query_adapter.h"
#include "support/scoped_environment.h"
#include "support/test_paths.h"

using namespace studio;
using methods_test::CollectingSink;
using methods_test::TinyModelFolder;

namespace {

// A fixed token sequence: bytes of a short repetitive text.
std::vector<std::int64_t> documentIds() {
  const std::string text = "abc def abc def ghi abc def ghi jkl abc def ghi jkl mno abc";
  return std::vector<std::int64_t>(text.begin(), text.end());
}

std::map<std::string, torch::Tensor> snapshot(model::CausalLMImpl& lm) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& item : lm.named_parameters()) out[item.key()] = item.value().detach().clone();
  return out;
}

bool isQuery(const std::string& name) { return name.find("q_proj.weight") != std::string::npos; }

// A tiny model loaded afresh, with documentIds() prefilled into its KV cache: where most tests
// here start.
struct PrefilledTinyModel {
  explicit PrefilledTinyModel(const std::string& tag, std::uint64_t seed = 7, double scale = 4.0)
      : folder(tag, seed, scale), loaded(folder.load()), lm(*loaded->lm), ids(documentIds()),
        cache(lm.numLayers()) {
    model::prefill(lm, cache, ids);
  }
  TinyModelFolder folder;
  std::shared_ptr<model::LoadedModel> loaded;
  model::CausalLMImpl& lm;
  const std::vector<std::int64_t> ids;
  model::ModelState cache;
};

// The span loss's gradient in each layer's W_Q against central differences, along the gradient
// (and a random direction), each of unit norm.
void checkSpanGradient(model::CausalLMImpl& lm, model::ModelState& cache,
                       const std::vector<std::int64_t>& ids, std::int64_t start, std::int64_t k,
                       bool random_direction) {
  plugins::QueryAdapter adapter(lm, {});
  std::vector<torch::Tensor> grads;
  {
    torch::AutoGradMode grad(true);
    adapter.spanLoss(cache, ids, start, k).backward();
    for (const auto& master : adapter.masters()) grads.push_back(master.grad().clone());
  }
  REQUIRE(static_cast<int>(grads.size()) == lm.config().attentionLayerCount());
  torch::manual_seed(5);
  for (std::size_t layer = 0; layer < adapter.masters().size(); ++layer) {
    torch::Tensor master = adapter.masters()[layer];
    const std::vector<torch::Tensor> directions =
        random_direction
            ? std::vector<torch::Tensor>{grads[layer].clone(), torch::randn_like(master)}
            : std::vector<torch::Tensor>{grads[layer].clone()};
    for (torch::Tensor direction : directions) {
      direction /= direction.norm();
      const double analytic = (grads[layer] * direction).sum().item<double>();
      const double eps = 1e-2;
      double plus, minus;
      {
        torch::NoGradGuard no_grad;
        master.add_(direction, eps);
        plus = adapter.spanLoss(cache, ids, start, k).item<double>();
        master.add_(direction, -2 * eps);
        minus = adapter.spanLoss(cache, ids, start, k).item<double>();
        master.add_(direction, eps);
      }
      const double numeric = (plus - minus) / (2 * eps);
      INFO("layer " << layer << " analytic " << analytic << " numeric " << numeric);
      CHECK(numeric == Approx(analytic).epsilon(0.03).margin(2e-4));
    }
    CHECK(grads[layer].norm().item<double>() > 1e-3);
  }
}

}  // namespace

TEST_CASE("qTTT leaves every parameter and the KV cache bit-identical and restores W_Q",
          "[methods][qttt]") {
  PrefilledTinyModel tiny("qttt-identical");
  model::CausalLMImpl& lm = tiny.lm;
  const auto before = snapshot(lm);
  const auto& ids = tiny.ids;
  model::ModelState& cache = tiny.cache;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> kv;
  for (int i = 0; i < lm.numLayers(); ++i) {
    auto [k, v] = cache.kv().contiguous(i);
    kv.emplace_back(k.clone(), v.clone());
  }
  {
    plugins::QueryAdapterOptions options;
    options.learning_rate = 3e-4;
    plugins::QueryAdapter adapter(lm, options);
    for (int step = 0; step < 4; ++step) adapter.step(cache, ids, step * 3, 16);
    // W_Q did move (through the override), everything else did not.
    for (int i = 0; i < lm.numLayers(); ++i) {
      CHECK_FALSE(torch::equal(lm.attention(i)->q_weight_override,
                               before.at("model.layers." + std::to_string(i) +
                                         ".self_attn.q_proj.weight")));
    }
    for (const auto& item : lm.named_parameters()) {
      INFO(item.key());
      CHECK(torch::equal(item.value(), before.at(item.key())));
      CHECK_FALSE(item.value().requires_grad());
    }
  }
  REQUIRE(cache.length() == static_cast<std::int64_t>(ids.size()));
  for (int i = 0; i < lm.numLayers(); ++i) {
    auto [k, v] = cache.kv().contiguous(i);
    CHECK(torch::equal(k, kv[i].first));
    CHECK(torch::equal(v, kv[i].second));
    CHECK_FALSE(lm.attention(i)->q_weight_override.defined());
  }
}

TEST_CASE("a qttt run restores the model it adapted", "[methods][qttt]") {
  plugins::registerBuiltinPlugins();
  TinyModelFolder folder("qttt-run");
  engine::ModelCache models;
  auto cached = models.get(folder.path(), "cpu", "");
  const auto before = snapshot(*cached.model->lm);
  CollectingSink sink;
  auto spec = methods_test::tinySpec(folder.path(), "qttt",
                                     {{"steps", 3}, {"span", 16}, {"lr", "3e-4"}});
  const engine::RunResult result = engine::executeRun(spec, models, sink, [] { return false; });
  REQUIRE(result.status == engine::RunStatus::Completed);
  const auto metrics = sink.all<engine::StepMetricEvent>();
  REQUIRE(metrics.size() == 3);
  for (const auto& metric : metrics) {
    CHECK(metric.phase == engine::StepPhase::Qttt);
    CHECK(metric.span_length == 16);
    CHECK(metric.span_start >= 0);
    CHECK(metric.span_start + 16 < result.prompt_tokens);
    CHECK(metric.learning_rate == Approx(3e-4));
    CHECK(std::isfinite(metric.loss));
    CHECK(metric.grad_norm > 0);
  }
  int step_probes = 0;
  for (const auto& probe : sink.all<engine::ProbeEvent>()) step_probes += probe.phase == engine::ProbePhase::QtttStep;
  CHECK(step_probes == 3);
  CHECK(result.target_mass.has_value());
  CHECK(result.flops.extra > 0);
  const auto after = snapshot(*cached.model->lm);
  for (const auto& [name, tensor] : before) {
    INFO(name);
    CHECK(torch::equal(tensor, after.at(name)));
  }
}

TEST_CASE("before any update the span path over the frozen cache matches a full forward",
          "[methods][qttt]") {
  PrefilledTinyModel tiny("qttt-span-path");
  model::CausalLMImpl& lm = tiny.lm;
  const auto& ids = tiny.ids;
  model::ModelState& cache = tiny.cache;
  const torch::Tensor full = methods_test::fullLogits(lm, ids);  // [T, vocab]
  plugins::QueryAdapter adapter(lm, {});
  torch::NoGradGuard no_grad;
  for (std::int64_t start : {0, 5, 20}) {
    const std::int64_t k = 24;
    const torch::Tensor span = adapter.spanLogits(cache, ids, start, k);  // [k, vocab]
    const double diff = (span - full.narrow(0, start, k)).abs().max().item<double>();
    INFO("start " << start << " max |Δ| " << diff);
    CHECK(diff < 1e-4);
  }
}

TEST_CASE("the span loss's gradient with respect to W_Q matches finite differences",
          "[methods][qttt]") {
  PrefilledTinyModel tiny("qttt-gradient", 11, 8.0);
  checkSpanGradient(tiny.lm, tiny.cache, tiny.ids, 7, 20, /*random_direction=*/true);
}

TEST_CASE("on Gemma 2's sliding, soft-capped attention the span gradient matches finite differences",
          "[methods][qttt]") {
  // gemma2-tiny: layers 0 and 2 see 7 keys back, scores capped at 2; the span of 12 from 20 reads
  // the window only, and the backward goes through the cap's slope.
  const auto loaded =
      model::loadModel(std::string(test_paths::kFixturesDir) + "/models/gemma2-tiny");
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 36; ++i) ids.push_back(3 + (i * 13) % 90);
  model::ModelState cache(loaded->lm->numLayers());
  model::prefill(*loaded->lm, cache, ids);
  checkSpanGradient(*loaded->lm, cache, ids, 20, 12, /*random_direction=*/false);
}

TEST_CASE("a frozen-cache step and a full-context step share the loss and the last W_Q gradient",
          "[methods][qttt]") {
  // Before any update the frozen cache holds what a full forward recomputes, so both ways see the
  // same span loss. The last layer's W_Q reaches the loss only through that layer's queries, so its
  // gradient is the same both ways. An earlier layer's W_Q also moves the keys and values of the
  // layers above it in a full forward; Algorithm 1 freezes those, so there the gradients differ.
  PrefilledTinyModel tiny("qttt-same-update");
  model::CausalLMImpl& lm = tiny.lm;
  const auto& ids = tiny.ids;
  model::ModelState& cache = tiny.cache;
  plugins::QueryAdapterOptions options;
  options.learning_rate = 3e-4;
  options.clip = 0;  // compare the raw gradients
  std::vector<torch::Tensor> frozen;
  plugins::SpanStepStats a, b;
  {
    plugins::QueryAdapter adapter(lm, options);
    a = adapter.step(cache, ids, 9, 24);
    for (const auto& master : adapter.masters()) frozen.push_back(master.grad().clone());
  }
  plugins::QueryAdapter adapter(lm, options);
  b = adapter.stepFullContext(ids, 9, 24);
  CHECK(a.loss == Approx(b.loss).epsilon(1e-5));
  REQUIRE(frozen.size() == 2);
  const torch::Tensor last_full = adapter.masters()[1].grad();
  const double last_error = (frozen[1] - last_full).norm().item<double>();
  INFO("last layer |Δgrad| " << last_error << " |grad| " << last_full.norm().item<double>());
  CHECK(last_error <= 1e-4 * last_full.norm().item<double>() + 1e-7);
  const torch::Tensor first_full = adapter.masters()[0].grad();
  const double first_error = (frozen[0] - first_full).norm().item<double>();
  INFO("first layer |Δgrad| " << first_error << " |grad| " << first_full.norm().item<double>());
  CHECK(first_error > 1e-3 * first_full.norm().item<double>());
}

TEST_CASE("qTTT steps that read their span from the device (STUDIO_QTTT_GRAPH=on) make the same "
          "updates bit for bit", "[methods][qttt]") {
  // On the CPU nothing is captured: the step reads its ids, positions, targets and key bounds from
  // the one tensor a CUDA graph would read them from, and runs the same attention.
  PrefilledTinyModel tiny("qttt-device-step");
  plugins::QueryAdapterOptions options;
  options.learning_rate = 3e-4;
  plugins::QueryAdapter from_device(tiny.lm, options);
  plugins::QueryAdapter from_host(tiny.lm, options);
  const auto T = static_cast<std::int64_t>(tiny.ids.size());
  task::SeededRng spans = task::SeededRng::stream(2, "qttt_device_step");
  // Six steps of 24 tokens, then three of 16: a new span length makes new input tensors; then
  // steps that alternate between the state and a copy of it elsewhere in memory (each change a
  // new graph on CUDA).
  model::ModelState copy = tiny.cache.copy();
  for (int step = 0; step < 12; ++step) {
    const std::int64_t k = step < 6 ? 24 : 16;
    const std::int64_t start = spans.uniformInt(1, T - k) - 1;
    model::ModelState& state = step >= 9 && step % 2 == 0 ? copy : tiny.cache;
    INFO("step " << step << ": span [" << start << ", " << start + k << ")");
    plugins::SpanStepStats a;
    {
      const test::ScopedEnvironment graph("STUDIO_QTTT_GRAPH", "on");
      a = from_device.step(state, tiny.ids, start, k);
    }
    const plugins::SpanStepStats b = from_host.step(state, tiny.ids, start, k);
    CHECK(a.loss == b.loss);
    CHECK(a.grad_norm == b.grad_norm);
    for (std::size_t layer = 0; layer < from_host.masters().size(); ++layer) {
      CHECK(torch::equal(from_device.masters()[layer], from_host.masters()[layer]));
    }
  }
  CHECK(from_device.graphReplays() == 0);  // nothing is captured on the CPU
  CHECK(from_device.graphFailure().empty());

  // A state that does not reach the span's last position is refused before any work: the device
  // cannot check the positions it reads.
  model::ModelState short_cache(tiny.lm.numLayers());
  model::prefill(tiny.lm, short_cache,
                 std::vector<std::int64_t>(tiny.ids.begin(), tiny.ids.begin() + 20));
  const auto master = from_device.masters()[0].detach().clone();
  const test::ScopedEnvironment graph("STUDIO_QTTT_GRAPH", "on");
  CHECK_THROWS_WITH(from_device.step(short_cache, tiny.ids, 10, 16),
                    Catch::Contains("positions") && Catch::Contains("position 25") &&
                        Catch::Contains("holds 20"));
  CHECK(torch::equal(from_device.masters()[0], master));
}

TEST_CASE("a span whose next tokens leave the prompt is refused before any work, naming it",
          "[methods][qttt]") {
  PrefilledTinyModel tiny("qttt-bad-span");
  const auto total = static_cast<std::int64_t>(tiny.ids.size());
  plugins::QueryAdapter adapter(tiny.lm, {});
  const auto master = adapter.masters()[0].detach().clone();
  for (const auto& [start, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {-1, 4}, {total - 4, 4}, {3, 0}, {total, 1}}) {
    INFO("start " << start << ", k " << k);
    CHECK_THROWS_WITH(adapter.step(tiny.cache, tiny.ids, start, k),
                      Catch::Contains("span") && Catch::Contains(std::to_string(total) + "-token"));
  }
  CHECK(torch::equal(adapter.masters()[0], master));  // no step was taken
  CHECK(adapter.masters()[0].grad().abs().sum().item<double>() == 0);
}

TEST_CASE("with a fixed seed the span loss falls over 16 steps", "[methods][qttt]") {
  PrefilledTinyModel tiny("qttt-falls");
  model::CausalLMImpl& lm = tiny.lm;
  const auto& ids = tiny.ids;
  model::ModelState& cache = tiny.cache;
  plugins::QueryAdapterOptions options;
  options.learning_rate = 3e-4;
  plugins::QueryAdapter adapter(lm, options);
  const std::int64_t T = static_cast<std::int64_t>(ids.size()), k = 32;
  auto evaluate = [&] {
    torch::NoGradGuard no_grad;
    return adapter.spanLoss(cache, ids, 0, T - 1).item<double>();
  };
  const double initial = evaluate();
  task::SeededRng spans = task::SeededRng::stream(1, "qttt_span");
  std::vector<double> losses;
  for (int step = 0; step < 16; ++step) {
    losses.push_back(adapter.step(cache, ids, spans.uniformInt(1, T - k) - 1, k).loss);
  }
  const double final_loss = evaluate();
  INFO("loss over the document " << initial << " -> " << final_loss << "; steps "
                                 << losses.front() << " -> " << losses.back());
  // W_Q alone of a random model moves the loss a little, but steadily: measured 5.772 -> 5.725.
  CHECK(final_loss < initial * 0.995);
  const double first4 = (losses[0] + losses[1] + losses[2] + losses[3]) / 4;
  const double last4 = (losses[12] + losses[13] + losses[14] + losses[15]) / 4;
  CHECK(last4 < first4);
}

TEST_CASE("save_adapted (--save-adapted) writes a checkpoint that differs from the model only in W_Q",
          "[methods][qttt]") {
  plugins::registerBuiltinPlugins();
  TinyModelFolder folder("qttt-save");
  const auto out = methods_test::tempPath("qttt-saved");
  engine::ModelCache models;
  CollectingSink sink;
  auto spec = methods_test::tinySpec(folder.path(), "qttt",
                                     {{"steps", 2}, {"span", 8}, {"lr", 3e-4},
                                      {"save_adapted", out.string()}});
  const engine::RunResult result = engine::executeRun(spec, models, sink, [] { return false; });
  REQUIRE(result.status == engine::RunStatus::Completed);
  auto original = folder.load();
  auto adapted = model::loadModel(out.string());
  CHECK(std::filesystem::exists(out / "tokenizer.json"));
  const auto a = snapshot(*original->lm);
  const auto b = snapshot(*adapted->lm);
  REQUIRE(a.size() == b.size());
  int queries = 0;
  for (const auto& [name, tensor] : a) {
    INFO(name);
    if (isQuery(name)) {
      ++queries;
      CHECK_FALSE(torch::equal(tensor, b.at(name)));
    } else {
      CHECK(torch::equal(tensor, b.at(name)));
    }
  }
  CHECK(queries == 2);
  removeTree(out.string());
}

TEST_CASE("cancelling a qttt run stops it between steps and restores W_Q", "[methods][qttt]") {
  plugins::registerBuiltinPlugins();
  TinyModelFolder folder("qttt-cancel");
  engine::ModelCache models;
  auto cached = models.get(folder.path(), "cpu", "");
  CollectingSink sink;
  int steps_seen = 0;
  sink.on_event = [&](const engine::Event& event) {
    if (std::holds_alternative<engine::StepMetricEvent>(event)) ++steps_seen;
  };
  auto spec = methods_test::tinySpec(folder.path(), "qttt", {{"steps", 50}, {"span", 8}});
  const engine::RunResult result =
      engine::executeRun(spec, models, sink, [&] { return steps_seen >= 3; });
  CHECK(result.status == engine::RunStatus::Cancelled);
  CHECK(steps_seen == 3);
  for (int i = 0; i < cached.model->lm->numLayers(); ++i) {
    CHECK_FALSE(cached.model->lm->attention(i)->q_weight_override.defined());
  }
}

TEST_CASE("qttt's lr takes any value in its range; the paper's grid is a suggestion", "[methods][qttt]") {
  const engine::Method* method = engine::MethodRegistry::instance().find("qttt");
  REQUIRE(method);
  const auto specs = method->params();
  const auto resolved = resolveParams("qttt", specs, {{"lr", "2e-6"}});
  CHECK(resolved["lr"].get<double>() == Approx(2e-6));
  const auto listed = paramSpecsToJson(specs);
  bool suggested = false;
  for (const auto& item : listed) {
    if (item["name"] == "lr") suggested = item.contains("suggestions") && item["suggestions"].size() == 6;
  }
  CHECK(suggested);
  CHECK_THROWS_WITH(resolveParams("qttt", specs, {{"lr", 0.0}}), Catch::Contains("lr"));
  CHECK_THROWS_WITH(resolveParams("qttt", specs, {{"lr", "fast"}}), Catch::Contains("lr"));
}

TEST_CASE("the span loss is Eq. 3.1's sum over the span by default, the mean on request",
          "[methods][qttt]") {
  PrefilledTinyModel tiny("qttt-span-sum");
  const std::int64_t start = 3, k = 17;
  torch::NoGradGuard no_grad;
  plugins::QueryAdapter summed(tiny.lm, {});
  const double sum = summed.spanLoss(tiny.cache, tiny.ids, start, k).item<double>();
  plugins::QueryAdapterOptions mean_options;
  mean_options.sum_loss = false;
  plugins::QueryAdapter averaged(tiny.lm, mean_options);
  const double mean = averaged.spanLoss(tiny.cache, tiny.ids, start, k).item<double>();
  CHECK(sum == Approx(k * mean).epsilon(1e-5));
  const engine::Method* method = engine::MethodRegistry::instance().find("qttt");
  REQUIRE(method);
  CHECK(resolveParams("qttt", method->params(), nlohmann::json::object())["span_loss"] == "sum");
}

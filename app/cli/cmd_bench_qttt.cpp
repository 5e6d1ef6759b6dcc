// studio-cli bench qttt: a qTTT step (span queries over the frozen prefill cache, W_Q only)
// against the naive way to the same update (the same span loss, but the whole context re-run
// forward and backward every step), at several context lengths; also each one's peak memory
// against the prefill's. By default on a small random qwen3-shaped model built in memory.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/bench_support.h"
#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "core/engine/flop_model.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "core/task/seeded_rng.h"
#include "plugins/method_qttt/query_adapter.h"

namespace studio::cli {

namespace {

struct BenchQtttOptions {
  std::string model;
  std::string device = "cpu";
  std::string dtype;
  std::vector<std::int64_t> lengths{4096, 16384};
  std::int64_t span = 128;
  int steps = 3;
  int naive_steps = 1;
  bool json = false;
};

// A small qwen3 shape that runs 16k tokens on a CPU in seconds.
model::ModelConfig smallConfig() {
  return model::ModelConfig::fromJson({{"model_type", "qwen3"},
                                       {"vocab_size", 1024},
                                       {"hidden_size", 256},
                                       {"intermediate_size", 768},
                                       {"num_hidden_layers", 4},
                                       {"num_attention_heads", 4},
                                       {"num_key_value_heads", 2},
                                       {"head_dim", 64},
                                       {"rms_norm_eps", 1e-6},
                                       {"rope_theta", 1000000.0},
                                       {"max_position_embeddings", 65536},
                                       {"tie_word_embeddings", true},
                                       {"torch_dtype", "float32"}},
                                      "bench qttt model");
}

nlohmann::json benchLength(model::CausalLMImpl& lm, const torch::Device& device,
                           std::int64_t length, const BenchQtttOptions& options) {
  task::SeededRng rng = task::SeededRng::stream(length, "bench_qttt");
  std::vector<std::int64_t> ids(static_cast<std::size_t>(length));
  for (auto& id : ids) id = rng.uniformInt(0, lm.config().vocab_size - 1);
  const std::int64_t span = std::min(options.span, length - 1);

  // Timed passes first; each memory figure comes from one more, untimed pass, because the heap
  // sampler's thread would disturb the timing.
  model::ModelState cache(lm.numLayers());
  const double prefill_seconds = timeSeconds(device, [&] { model::prefill(lm, cache, ids); });
  const double prefill_bytes = peakHeapBytesDuring([&] {
    model::ModelState scratch(lm.numLayers());
    model::prefill(lm, scratch, ids);
  });

  plugins::QueryAdapterOptions adapter_options;
  adapter_options.learning_rate = 1e-5;
  plugins::QueryAdapter adapter(lm, adapter_options);
  auto starts = [&] { return rng.uniformInt(1, length - span) - 1; };
  adapter.step(cache, ids, starts(), span);  // warm-up
  std::vector<double> step_seconds;
  for (int i = 0; i < options.steps; ++i) {
    step_seconds.push_back(timeSeconds(device, [&] { adapter.step(cache, ids, starts(), span); }));
  }
  const double step_bytes = peakHeapBytesDuring([&] { adapter.step(cache, ids, starts(), span); });
  std::vector<double> naive_seconds;
  for (int i = 0; i < options.naive_steps; ++i) {
    naive_seconds.push_back(
        timeSeconds(device, [&] { adapter.stepFullContext(ids, starts(), span); }));
  }
  const double naive_bytes =
      peakHeapBytesDuring([&] { adapter.stepFullContext(ids, starts(), span); });
  const double step = *std::min_element(step_seconds.begin(), step_seconds.end());
  const double naive = *std::min_element(naive_seconds.begin(), naive_seconds.end());
  const engine::FlopShape shape = engine::FlopShape::of(lm.config());
  const auto T = static_cast<double>(length);
  return {{"context", length},
          {"span", span},
          {"prefill_seconds", prefill_seconds},
          {"qttt_step_seconds", step},
          {"naive_step_seconds", naive},
          {"speedup", naive / step},
          {"step_over_prefill", step / prefill_seconds},
          {"prefill_peak_bytes", prefill_bytes},
          {"qttt_step_peak_bytes", step_bytes},
          {"naive_step_peak_bytes", naive_bytes},
          {"step_peak_over_prefill", prefill_bytes > 0 ? step_bytes / prefill_bytes : 0.0},
          {"model_step_over_prefill_flops",
           engine::qtttStepFlops(shape, T, static_cast<double>(span)) /
               engine::prefillFlops(shape, T)}};
}

void runBench(const BenchQtttOptions& options) {
  if (options.span < 1) throwArgument("--span", "must be at least 1");
  if (options.steps < 1 || options.naive_steps < 1) throwArgument("--steps", "must be at least 1");
  model::LoadOptions load;
  load.device = options.device;
  load.dtype = options.dtype;
  std::shared_ptr<model::LoadedModel> loaded;
  if (options.model.empty()) {
    const model::ModelConfig config = smallConfig();
    loaded = model::buildModel(config, model::randomTensors(config, 1), load);
  } else {
    loaded = model::loadModel(options.model, load);
  }
  nlohmann::json rows = nlohmann::json::array();
  for (std::int64_t length : options.lengths) {
    if (length < 2) throwArgument("--lengths", "every length must be at least 2");
    rows.push_back(benchLength(*loaded->lm, loaded->device, length, options));
    if (!options.json) {
      const auto& row = rows.back();
      std::cout << "T=" << length << " k=" << row["span"] << ": prefill "
                << row["prefill_seconds"].get<double>() << " s, qTTT step "
                << row["qttt_step_seconds"].get<double>() << " s, naive step "
                << row["naive_step_seconds"].get<double>() << " s, speedup "
                << row["speedup"].get<double>() << "x; step/prefill time "
                << row["step_over_prefill"].get<double>() << "; peak memory: prefill "
                << row["prefill_peak_bytes"].get<double>() / 1048576 << " MiB, qTTT step "
                << row["qttt_step_peak_bytes"].get<double>() / 1048576 << " MiB, naive step "
                << row["naive_step_peak_bytes"].get<double>() / 1048576 << " MiB" << std::endl;
    }
  }
  if (options.json) {
    std::cout << nlohmann::json({{"model", options.model.empty() ? "random small qwen3"
                                                                 : options.model},
                                 {"device", options.device},
                                 {"dtype", model::dtypeName(loaded->dtype)},
                                 {"lengths", rows}})
                     .dump(2)
              << "\n";
  }
}

void addBenchQtttCommand(CLI::App& app, int& exit_code) {
  auto* command = benchCommand(app).add_subcommand(
      "qttt", "A qTTT step against re-running the whole context per step, at several lengths");
  auto options = std::make_shared<BenchQtttOptions>();
  command->add_option("--model", options->model,
                      "Model folder (default: a small random qwen3 built in memory)");
  command->add_option("--device", options->device, "cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  command->add_option("--dtype", options->dtype, "f32, bf16 or f16")
      ->check(CLI::IsMember({"f32", "bf16", "f16"}));
  command->add_option("--lengths", options->lengths, "Context lengths")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--span", options->span, "k: span tokens")->capture_default_str();
  command->add_option("--steps", options->steps, "Timed qTTT steps (the best counts)")
      ->capture_default_str();
  command->add_option("--naive-steps", options->naive_steps, "Timed naive steps")
      ->capture_default_str();
  command->add_flag("--json", options->json, "Print JSON");
  setCommandAction(command, exit_code, [options] { runBench(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(165, addBenchQtttCommand);

}  // namespace studio::cli

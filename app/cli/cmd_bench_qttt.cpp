// studio-cli bench qttt: a qTTT step (span queries over the frozen prefill cache, W_Q only)
// against the naive way to the same update (the same span loss, but the whole context re-run
// forward and backward every step), at several context lengths; also each one's peak memory
// against the prefill's (on a GPU, the CUDA allocator's peaks). By default on a small random
// qwen3-shaped model built in memory (--shape small); --shape 1.7b/4b or --model for real sizes.

#include <ATen/record_function.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/bench_support.h"
#include "app/cli/cli_command.h"
#include "app/cli/host_op_counter.h"
#include "app/cli/profiler_trace.h"
#include "core/common/error.h"
#include "core/engine/flop_model.h"
#include "core/engine/provenance.h"
#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "core/task/seeded_rng.h"
#include "plugins/method_qttt/query_adapter.h"

namespace studio::cli {

namespace {

struct BenchQtttOptions {
  BenchModelOptions model;  // shape "small" unless --shape or --model says otherwise
  std::vector<std::int64_t> lengths{4096, 16384};
  std::int64_t span = 128;
  int steps = 3;
  int naive_steps = 1;  // 0: no naive baseline (at 32k on a billion-parameter model it needs
                        // the whole context's activations and T×T scores: it cannot fit a GPU)
  bool json = false;
  std::string trace;  // Chrome trace of the timed work; empty: none
};

bool isOutOfMemory(const c10::Error& error) {
  return std::string(error.what()).find("out of memory") != std::string::npos;
}

nlohmann::json benchLength(model::CausalLMImpl& lm, const torch::Device& device,
                           std::int64_t length, const BenchQtttOptions& options) {
  task::SeededRng rng = task::SeededRng::stream(length, "bench_qttt");
  std::vector<std::int64_t> ids(static_cast<std::size_t>(length));
  for (auto& id : ids) id = rng.uniformInt(0, lm.config().vocab_size - 1);
  const std::int64_t span = std::min(options.span, length - 1);

  // Memory: on a GPU the allocator's peak during the timed passes themselves; on the CPU one
  // more, untimed pass each, because the heap sampler's thread would disturb the timing
  // (measurePhase).
  // The untimed prefill's cache outlives the measurement, so the figure counts the cache it leaves
  // even when the pass is over before the sampler's first look (a short context).
  model::ModelState cache(lm.numLayers());
  double prefill_seconds = 0;
  std::optional<model::ModelState> scratch;
  const PhaseMemory prefill_memory = measurePhase(
      device,
      [&] {
        prefill_seconds = timeSeconds(device, [&] {
          RECORD_USER_SCOPE("bench.prefill");  // names the phase in a --trace
          model::prefill(lm, cache, ids);
        });
      },
      [&] {
        scratch.emplace(lm.numLayers());
        model::prefill(lm, *scratch, ids);
      });
  scratch.reset();

  plugins::QueryAdapterOptions adapter_options;
  adapter_options.learning_rate = 1e-5;
  plugins::QueryAdapter adapter(lm, adapter_options);
  auto starts = [&] { return rng.uniformInt(1, length - span) - 1; };
  adapter.step(cache, ids, starts(), span);  // warm-up
  std::vector<double> step_seconds;
  const PhaseMemory step_memory = measurePhase(
      device,
      [&] {
        for (int i = 0; i < options.steps; ++i) {
          step_seconds.push_back(
              timeSeconds(device, [&] {
                RECORD_USER_SCOPE("bench.qttt_step");
                adapter.step(cache, ids, starts(), span);
              }));
        }
      },
      [&] { adapter.step(cache, ids, starts(), span); });
  nlohmann::json host_ops_top = nlohmann::json::array();
  std::int64_t host_ops = 0;
  {
    const HostOpCounter counter;  // in a step of its own: counting slows every call
    adapter.step(cache, ids, starts(), span);
    host_ops = counter.count();
    for (const auto& [name, count] : counter.top(100)) host_ops_top.push_back({name, count});
  }
  std::vector<double> naive_seconds;
  PhaseMemory naive_memory;
  std::string naive_note;
  if (options.naive_steps > 0) {
    try {
      naive_memory = measurePhase(
          device,
          [&] {
            for (int i = 0; i < options.naive_steps; ++i) {
              naive_seconds.push_back(
                  timeSeconds(device, [&] { adapter.stepFullContext(ids, starts(), span); }));
            }
          },
          [&] { adapter.stepFullContext(ids, starts(), span); });
    } catch (const c10::Error& error) {
      if (!isOutOfMemory(error)) throw;
      naive_seconds.clear();
      naive_memory = {};
      naive_note = "out of memory";
    }
  } else {
    naive_note = "not run (--naive-steps 0)";
  }
  const double step = *std::min_element(step_seconds.begin(), step_seconds.end());
  std::optional<double> naive;
  if (!naive_seconds.empty()) naive = *std::min_element(naive_seconds.begin(), naive_seconds.end());
  const engine::FlopShape shape = engine::FlopShape::of(lm.config());
  const auto T = static_cast<double>(length);
  std::optional<double> speedup, step_peak_over_prefill;
  if (naive) speedup = *naive / step;
  if (prefill_memory.extra_bytes && step_memory.extra_bytes && *prefill_memory.extra_bytes > 0) {
    step_peak_over_prefill = *step_memory.extra_bytes / *prefill_memory.extra_bytes;
  }
  nlohmann::json row = {
      {"context", length},
      {"span", span},
      {"prefill_seconds", prefill_seconds},
      {"qttt_step_seconds", step},
      {"naive_step_seconds", jsonNumber(naive)},
      {"speedup", jsonNumber(speedup)},
      {"step_over_prefill", step / prefill_seconds},
      {"host_ops_per_step", host_ops},
      {"host_ops_top", host_ops_top},
      // STUDIO_QTTT_GRAPH=on: steps replayed from the captured graph (the first two of a span
      // length run op by op), and why a capture failed
      {"graph_replays", adapter.graphReplays()},
      {"graph_failure", adapter.graphFailure()},
      {"prefill_peak_bytes", jsonNumber(prefill_memory.extra_bytes)},
      {"qttt_step_peak_bytes", jsonNumber(step_memory.extra_bytes)},
      {"naive_step_peak_bytes", jsonNumber(naive_memory.extra_bytes)},
      {"prefill_peak_device_bytes", jsonNumber(prefill_memory.device_peak_bytes)},
      {"qttt_step_peak_device_bytes", jsonNumber(step_memory.device_peak_bytes)},
      {"naive_step_peak_device_bytes", jsonNumber(naive_memory.device_peak_bytes)},
      {"step_peak_over_prefill", jsonNumber(step_peak_over_prefill)},
      {"model_step_over_prefill_flops",
       engine::qtttStepFlops(shape, T, static_cast<double>(span)) /
           engine::prefillFlops(shape, T)}};
  if (!naive_note.empty()) row["naive_step_note"] = naive_note;
  return row;
}

std::string seconds(const nlohmann::json& value) {
  if (value.is_null()) return "n/a";
  std::ostringstream text;
  text << value.get<double>() << " s";
  return text.str();
}

std::optional<double> optionalNumber(const nlohmann::json& value) {
  return value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
}

void runBench(const BenchQtttOptions& options) {
  if (options.span < 1) throwArgument("--span", "must be at least 1");
  if (options.steps < 1) throwArgument("--steps", "must be at least 1");
  if (options.naive_steps < 0) throwArgument("--naive-steps", "must be 0 (none) or more");
  checkedLengths(options.lengths, "--lengths", 2);
  const auto loaded = loadBenchModel(options.model, 1);
  const torch::Device device = loaded->device;
  warmUpPrefills(*loaded->lm, options.lengths, device);
  nlohmann::json rows = nlohmann::json::array();
  ProfilerTrace trace(options.trace, device.is_cuda());
  for (std::int64_t length : options.lengths) {
    rows.push_back(benchLength(*loaded->lm, device, length, options));
    if (!options.trace.empty()) rows.back()["traced"] = options.trace;
    if (!options.json) {
      const auto& row = rows.back();
      std::cout << "T=" << length << " k=" << row["span"] << ": prefill "
                << row["prefill_seconds"].get<double>() << " s, qTTT step "
                << row["qttt_step_seconds"].get<double>() << " s, naive step "
                << seconds(row["naive_step_seconds"]);
      if (row.contains("naive_step_note")) std::cout << " (" << row["naive_step_note"].get<std::string>() << ")";
      if (!row["speedup"].is_null()) std::cout << ", speedup " << row["speedup"].get<double>() << "x";
      std::cout << "; " << row["host_ops_per_step"].get<std::int64_t>()
                << " aten calls a qTTT step (leaf, no views)";
      if (row["graph_replays"].get<std::int64_t>() > 0) {
        std::cout << " (" << row["graph_replays"].get<std::int64_t>()
                  << " steps replayed from a CUDA graph)";
      }
      if (!row["graph_failure"].get<std::string>().empty()) {
        std::cout << " (the CUDA graph's capture failed: "
                  << row["graph_failure"].get<std::string>() << ")";
      }
      std::cout << "; step/prefill time " << row["step_over_prefill"].get<double>()
                << " (FLOPs predict " << row["model_step_over_prefill_flops"].get<double>()
                << "); peak memory above the level before: prefill "
                << formatBytes(optionalNumber(row["prefill_peak_bytes"])) << ", qTTT step "
                << formatBytes(optionalNumber(row["qttt_step_peak_bytes"])) << ", naive step "
                << formatBytes(optionalNumber(row["naive_step_peak_bytes"]));
      if (device.is_cuda()) {
        std::cout << "; peak device memory in all: prefill "
                  << formatBytes(optionalNumber(row["prefill_peak_device_bytes"])) << ", qTTT step "
                  << formatBytes(optionalNumber(row["qttt_step_peak_device_bytes"]))
                  << ", naive step "
                  << formatBytes(optionalNumber(row["naive_step_peak_device_bytes"]));
      }
      std::cout << std::endl;
    }
  }
  trace.finish();
  if (options.json) {
    std::cout << nlohmann::json({{"model", benchModelName(options.model)},
                                 {"parameters", loaded->config.parameterCount()},
                                 {"device", device.str()},
                                 {"dtype", model::dtypeName(loaded->dtype)},
                                 {"memory", memorySource(device)},
                                 {"provenance", engine::provenanceOf(*loaded).toJson()},
                                 {"lengths", rows}})
                     .dump(2)
              << "\n";
  }
}

void addBenchQtttCommand(CLI::App& app, int& exit_code) {
  auto* command = benchCommand(app).add_subcommand(
      "qttt", "A qTTT step against re-running the whole context per step, at several lengths");
  auto options = std::make_shared<BenchQtttOptions>();
  options->model.shape = "small";
  addBenchModelOptions(command, options->model);
  command->add_option("--lengths", options->lengths, "Context lengths")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--span", options->span, "k: span tokens")->capture_default_str();
  command->add_option("--steps", options->steps, "Timed qTTT steps (the best counts)")
      ->capture_default_str();
  command->add_option("--naive-steps", options->naive_steps,
                      "Timed naive steps (0: none; needed at long contexts on large models)")
      ->capture_default_str();
  command->add_flag("--json", options->json, "Print JSON");
  command->add_option("--trace", options->trace,
                      "Record the timed prefills and steps with libtorch's profiler into this Chrome "
                      "trace JSON (scripts/trace-summary sums it); timings then include its overhead");
  setCommandAction(command, exit_code, [options] { runBench(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(165, addBenchQtttCommand);

}  // namespace studio::cli

// studio-cli bench prefill | decode | probe: the engine's speed, each next to this machine's own
// fp32 matmul rate (the ratio is what travels between machines) and, given the card's peaks,
// against the hardware's limits: prefill as MFU (matmul FLOP/s over the dense bf16 peak), decode
// as the fraction of HBM bandwidth its bytes per token use; the probe's cost and memory against
// the prefill's. Each takes a list of lengths and prints a line per length, or with --json one
// JSON object per line.

#include <ATen/record_function.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

#include "app/cli/bench_support.h"
#include "app/cli/cli_command.h"
#include "app/cli/profiler_trace.h"
#include "core/common/error.h"
#include "core/engine/flop_model.h"
#include "core/engine/provenance.h"
#include "core/model/decode_graph.h"
#include "core/model/generation.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "core/probe/attention_probe.h"
#include "core/probe/probe_bounds.h"

namespace studio::cli {

namespace {

struct SpeedOptions {
  BenchModelOptions model;
  std::vector<std::int64_t> tokens{2048};
  std::int64_t decode_tokens = 32;
  std::string decode_path = "auto";  // auto, graph or eager (decode_graph.h)
  bool probe_steps = false;          // probe every decode step, as thinking runs do
  std::string sampling = "greedy";   // greedy, thinking or non-thinking (SamplingParams)
  std::int64_t chunk = 0;  // tokens per prefill forward; 0: the engine's default for the device
  std::vector<std::int64_t> lengths{4096, 16384};
  double peak_tflops = 0;  // the card's dense bf16 peak; 0: unknown
  double peak_gbps = 0;    // its memory bandwidth in GB/s; 0: unknown
  bool json = false;
  std::string trace;  // Chrome trace of the timed work (prefill, decode); empty: none
};

// What the MFU counts (engine::forwardMatmulFlops), said once in the human output and in every
// JSON object.
constexpr const char* kMatmulCount =
    "matmul FLOPs, 2 per multiply-add: q/k/v/o projections and the gated MLP for every token, "
    "causal QK^T and PV (4*heads*head_dim per query-key pair the mask keeps, T(T+1)/2 pairs per "
    "head), the LM head for the one row of logits prefill returns; not norms, RoPE, softmax";
constexpr const char* kApp10Note =
    "App. 10 model: C_quad*T^2 + C_tok*T; its C_quad*T^2 = 2*L*d*T^2 is the causal QK^T and PV "
    "work with d in place of heads*head_dim, its C_tok = (4+2r)*L*d^2 counts each weight once (a "
    "multiply-add, not 2 FLOPs), two MLP matrices, no grouped K/V and no LM head";
constexpr const char* kApp10Count =
    "App. 10 model (no exact matmul count for TTT or SR-TTT layers): C_quad*T^2 + C_tok*T";

std::vector<std::int64_t> randomIds(std::int64_t count, std::int64_t vocab) {
  const torch::Tensor ids = torch::randint(vocab, {count}, torch::TensorOptions().dtype(torch::kInt64));
  return std::vector<std::int64_t>(ids.data_ptr<std::int64_t>(), ids.data_ptr<std::int64_t>() + count);
}

void checkPeak(double value, const std::string& option) {
  if (!std::isfinite(value) || value < 0) {
    throwArgument(option, "must be 0 (unknown) or a positive number");
  }
}

std::optional<double> positive(double value) {
  return value > 0 ? std::optional<double>(value) : std::nullopt;
}

struct Bench {
  std::shared_ptr<model::LoadedModel> loaded;
  double machine_gflops = 0;
  nlohmann::json header;  // the fields every JSON object starts with
};

Bench startBench(const SpeedOptions& options, const std::string& name) {
  Bench bench;
  bench.loaded = loadBenchModel(options.model);
  bench.machine_gflops = matmulGflops(bench.loaded->device);
  const auto& loaded = *bench.loaded;
  const auto& c = loaded.config;
  bench.header = {{"bench", name},
                  {"model", benchModelName(options.model)},
                  {"layers", c.num_hidden_layers},
                  {"hidden", c.hidden_size},
                  {"parameters", c.parameterCount()},
                  {"dtype", model::dtypeName(loaded.dtype)},
                  {"device", loaded.device.str()},
                  {"threads", torch::get_num_threads()},
                  {"machine_fp32_matmul_gflops", bench.machine_gflops},
                  {"memory", memorySource(loaded.device)},
                  {"provenance", engine::provenanceOf(loaded).toJson()}};
  if (!options.json) {
    std::cout << "model: " << (loaded.dir.empty() ? "random weights" : loaded.dir) << ", "
              << c.num_hidden_layers << " layers, hidden " << c.hidden_size << ", "
              << std::setprecision(3) << static_cast<double>(c.parameterCount()) / 1e6
              << "M parameters, " << model::dtypeName(loaded.dtype) << " on "
              << loaded.device.str() << ", " << torch::get_num_threads() << " threads\n"
              << "machine fp32 matmul (2048²): " << std::fixed << std::setprecision(1)
              << bench.machine_gflops << " GFLOP/s\n";
    std::cout.unsetf(std::ios::floatfield);
  }
  return bench;
}

// Bytes a decode step reads besides the KV cache: every parameter once, in the loaded dtype. The
// input embedding gives one row per token, so with untied embeddings only that row counts (the LM
// head is its own matrix, read whole); tied, the one matrix is read whole as the LM head.
double weightBytesPerToken(const model::LoadedModel& loaded) {
  double total = 0;
  for (const auto& parameter : loaded.lm->parameters()) {
    total += static_cast<double>(parameter.numel()) * static_cast<double>(parameter.element_size());
  }
  const auto& c = loaded.config;
  if (!c.tie_word_embeddings) {
    total -= static_cast<double>(c.vocab_size - 1) * static_cast<double>(c.hidden_size) *
             static_cast<double>(c10::elementSize(loaded.dtype));
  }
  return total;
}

// KV cache bytes per cached position: attention layers × 2 (K and V) × kv heads × head_dim × the
// dtype's size. (TTT layers' fast weights are not a cache that grows; not counted.)
double kvBytesPerPosition(const model::LoadedModel& loaded) {
  const auto& c = loaded.config;
  return static_cast<double>(c.attentionLayerCount()) * 2.0 *
         static_cast<double>(c.num_key_value_heads) * static_cast<double>(c.head_dim) *
         static_cast<double>(c10::elementSize(loaded.dtype));
}

std::string significant(double value, int digits) {
  std::ostringstream text;
  text << std::setprecision(digits) << value;
  return text.str();
}

std::string fixed(double value, int digits) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

// Prefill of `T` tokens into `cache` (timed, peak memory read around it); returns its JSON
// object and prints the human line.
nlohmann::json prefillOne(const Bench& bench, const SpeedOptions& options, std::int64_t T,
                          model::ModelState& cache, torch::Tensor& logits) {
  const auto& loaded = *bench.loaded;
  const auto& c = loaded.config;
  const auto ids = randomIds(T, c.vocab_size);
  torch::NoGradGuard no_grad;
  model::CausalLMImpl& lm = *bench.loaded->lm;
  double seconds = 0;
  const PhaseMemory memory = measurePhase(loaded.device, [&] {
    model::PrefillOptions prefill_options;
    prefill_options.chunk = options.chunk;
    seconds = timeSeconds(loaded.device, [&] {
      RECORD_USER_SCOPE("bench.prefill");  // names the phase in a --trace
      logits = model::prefill(lm, cache, ids, prefill_options);
    });
  });
  const double tokens = static_cast<double>(T);
  const double app10 = engine::prefillFlops(engine::FlopShape::of(c), tokens);
  const std::optional<double> exact = engine::forwardMatmulFlops(c, 0, tokens, 1);
  const double counted = exact.value_or(app10);
  const double achieved_tflops = counted / seconds / 1e12;
  std::optional<double> mfu;
  if (options.peak_tflops > 0) mfu = achieved_tflops / options.peak_tflops;
  nlohmann::json row = bench.header;
  row.update({{"tokens", T},
              {"prefill_chunk", options.chunk > 0 ? options.chunk : model::defaultPrefillChunk(loaded.device)},
              {"prefill_seconds", seconds},
              {"prefill_tokens_per_s", tokens / seconds},
              {"prefill_flops", counted},
              {"flop_count", exact ? kMatmulCount : kApp10Count},
              {"prefill_tflops_per_s", achieved_tflops},
              {"app10_flops", app10},
              {"app10_count", kApp10Note},
              {"app10_gflops_per_s", app10 / seconds / 1e9},
              {"over_machine_matmul", app10 / seconds / 1e9 / bench.machine_gflops},
              {"peak_tflops", jsonNumber(positive(options.peak_tflops))},
              {"mfu", jsonNumber(mfu)},
              {"kv_cache_bytes", kvBytesPerPosition(loaded) * tokens},
              {"prefill_peak_bytes", jsonNumber(memory.extra_bytes)},
              {"prefill_peak_device_bytes", jsonNumber(memory.device_peak_bytes)}});
  if (!options.json) {
    const double app10_gflops = app10 / seconds / 1e9;
    std::cout << "prefill " << T << " tokens: " << std::setprecision(3) << seconds << " s, "
              << fixed(tokens / seconds, 1) << " tokens/s, " << fixed(app10_gflops, 1)
              << " GFLOP/s (App. 10 model), " << fixed(app10_gflops / bench.machine_gflops, 2)
              << "× the matmul rate";
    if (exact) {
      std::cout << "; " << significant(achieved_tflops, 3) << " TFLOP/s of matmul FLOPs ("
                << significant(*exact / 1e12, 3) << " TFLOP: projections, MLP, causal QKᵀ and PV, LM "
                << "head; App. 10 counts " << fixed(app10 / *exact, 2) << "× that)";
    }
    if (mfu) {
      std::cout << ", MFU " << fixed(100 * *mfu, 1) << " % of " << options.peak_tflops
                << " TFLOP/s";
    }
    if (loaded.device.is_cuda()) {
      std::cout << "; peak device memory " << formatBytes(memory.device_peak_bytes) << " (+"
                << formatBytes(memory.extra_bytes) << " over the weights and what was held)";
    }
    std::cout << "\n";
  }
  return row;
}

void benchPrefill(const SpeedOptions& options, bool decode) {
  const auto tokens = checkedLengths(options.tokens, "--tokens", 1);
  if (decode && options.decode_tokens < 1) throwArgument("--decode-tokens", "must be at least 1");
  checkPeak(options.peak_tflops, "--peak-tflops");
  checkPeak(options.peak_gbps, "--peak-gbps");
  const Bench bench = startBench(options, decode ? "decode" : "prefill");
  const auto& loaded = *bench.loaded;
  const auto& c = loaded.config;
  model::CausalLMImpl& lm = *bench.loaded->lm;
  warmUpPrefills(lm, tokens, loaded.device);
  const double weight_bytes = weightBytesPerToken(loaded);
  const double kv_per_position = kvBytesPerPosition(loaded);
  ProfilerTrace trace(options.trace, loaded.device.is_cuda());
  for (const std::int64_t T : tokens) {
    model::ModelState cache(lm.numLayers());
    torch::Tensor logits;
    nlohmann::json row = prefillOne(bench, options, T, cache, logits);
    if (decode) {
      torch::NoGradGuard no_grad;
      // auto: as generate() decides; graph: wherever one applies; its capture is in the untimed
      // first step.
      const std::int64_t final_length = cache.length() + options.decode_tokens + 1;
      const std::string graph_refusal =
          options.decode_path == "eager"   ? std::string("--decode-path eager")
          : options.decode_path == "graph" ? model::DecodeGraph::refusal(lm, cache)
                                           : model::DecodeGraph::generationRefusal(lm, cache, final_length);
      // Two untimed steps first: the first runs op by op (its kernels differ from the prefill's),
      // the second captures the graph. The timed steps are generate()'s greedy decoding, each step
      // queued before the host reads its token where lookaheadRefusal() allows.
      // --probe-steps: every step's query probed against 16 target keys a third of the way in, as
      // a thinking run's steps are (method_steps.cpp).
      const std::vector<Span> targets{{T / 3, std::min(T, T / 3 + 16)}};
      model::DecodeHooks hooks;
      if (options.probe_steps) {
        hooks.on_step = [&](std::int64_t, const model::ForwardCapture& capture) {
          probe::measureCapture(lm, cache, capture, targets);
        };
      }
      std::unique_ptr<model::DecodeGraph> graph;
      if (graph_refusal.empty()) {
        graph = std::make_unique<model::DecodeGraph>(lm, cache, options.decode_tokens + 2,
                                                     options.probe_steps);
      }
      model::DecodePlan plan;
      plan.graph = graph.get();
      plan.op_by_op = !graph;
      model::Sampler sampler(options.sampling == "thinking" ? model::SamplingParams::thinking(0)
                             : options.sampling == "non-thinking"
                                 ? model::SamplingParams::nonThinking(0)
                                 : model::SamplingParams{});
      std::int64_t replayed = 0;  // of the last call's steps
      const auto decode = [&](std::int64_t tokens) {
        model::StopCriteria stop;
        stop.max_tokens = tokens;
        const model::Generation out =
            model::generate(lm, cache, logits, sampler, stop, nullptr, hooks, plan);
        logits = out.logits;
        replayed = out.replayed_steps;
      };
      decode(2);
      const double start_length = static_cast<double>(cache.length());
      const std::int64_t n = options.decode_tokens;
      const double seconds = timeSeconds(loaded.device, [&] {
        RECORD_USER_SCOPE("bench.decode");
        decode(n);
      });
      const std::string lookahead = model::lookaheadRefusal(lm, sampler, hooks);
      const std::string path =
          (graph && graph->captureFailure().empty()
               ? std::string("cuda graph, attention: ") + graph->attentionPath()
               : "eager: " + (graph ? graph->captureFailure() : graph_refusal)) +
          (lookahead.empty() ? "; next step queued ahead" : "; one step at a time: " + lookahead);
      // Step i (0-based) appends one token and attends over start_length + i + 1 keys: the KV
      // cache it reads grows by one position per step, so the mean over the timed steps counts.
      const double mean_keys = start_length + (static_cast<double>(n) + 1) / 2;
      const double kv_bytes = kv_per_position * mean_keys;
      const double bytes_per_token = weight_bytes + kv_bytes;
      const double tokens_per_s = static_cast<double>(n) / seconds;
      const double achieved_gbps = bytes_per_token * tokens_per_s / 1e9;
      std::optional<double> fraction;
      if (options.peak_gbps > 0) fraction = achieved_gbps / options.peak_gbps;
      const double app10 = engine::generationFlops(engine::FlopShape::of(c),
                                                   static_cast<double>(T),
                                                   static_cast<double>(n));
      const std::optional<double> step_flops =
          engine::forwardMatmulFlops(c, mean_keys - 1, 1, 1);
      row.update({{"decode_path", path},
                  {"decode_queued_ahead", lookahead.empty()},
                  {"decode_replayed_steps", replayed},
                  {"decode_probed", options.probe_steps},
                  {"decode_sampling", options.sampling},
                  {"decode_tokens", n},
                  {"decode_seconds", seconds},
                  {"decode_tokens_per_s", tokens_per_s},
                  {"decode_mean_context", mean_keys},
                  {"weight_bytes_per_token", weight_bytes},
                  {"kv_bytes_per_position", kv_per_position},
                  {"kv_bytes_per_token", kv_bytes},
                  {"bytes_per_token", bytes_per_token},
                  {"decode_gbps", achieved_gbps},
                  {"peak_gbps", jsonNumber(positive(options.peak_gbps))},
                  {"bandwidth_fraction", jsonNumber(fraction)},
                  {"decode_matmul_flops_per_token", jsonNumber(step_flops)},
                  {"decode_app10_gflops_per_s", app10 / seconds / 1e9}});
      if (!options.json) {
        const double app10_gflops = app10 / seconds / 1e9;
        std::cout << "decode " << n << " tokens after " << T << " [" << path << "]: " << fixed(tokens_per_s, 1)
                  << " tokens/s, " << fixed(app10_gflops, 1) << " GFLOP/s, "
                  << fixed(app10_gflops / bench.machine_gflops, 3) << "× the matmul rate; "
                  << formatBytes(bytes_per_token) << " read per token (weights "
                  << formatBytes(weight_bytes) << " + KV cache " << formatBytes(kv_bytes)
                  << " at a mean context of " << fixed(mean_keys, 1) << "), "
                  << fixed(achieved_gbps, 1) << " GB/s";
        if (fraction) {
          std::cout << " = " << fixed(100 * *fraction, 1) << " % of " << options.peak_gbps
                    << " GB/s";
        }
        std::cout << "\n";
      }
    }
    if (!options.trace.empty()) row["traced"] = options.trace;
    if (options.json) std::cout << row.dump() << std::endl;
  }
  trace.finish();
  if (!options.json) {
    std::cout << "(the TFLOP/s and MFU count " << kMatmulCount << ")\n";
    if (!options.trace.empty()) {
      std::cout << "(timed under libtorch's profiler, trace in " << options.trace << ")\n";
    }
  }
}

void benchProbe(const SpeedOptions& options) {
  const auto lengths = checkedLengths(options.lengths, "--lengths", 64);
  const Bench bench = startBench(options, "probe");
  const auto& loaded = *bench.loaded;
  model::CausalLMImpl& lm = *bench.loaded->lm;
  const auto& c = loaded.config;
  warmUpPrefills(lm, lengths, loaded.device);
  for (const std::int64_t T : lengths) {
    const auto ids = randomIds(T, c.vocab_size);
    torch::NoGradGuard no_grad;
    model::ModelState cache(lm.numLayers());
    double prefill_s = 0;
    const PhaseMemory prefill_memory = measurePhase(loaded.device, [&] {
      prefill_s = timeSeconds(loaded.device, [&] { model::prefill(lm, cache, ids); });
    });
    const probe::AttentionProbe probe(lm, cache, ids);
    const std::vector<Span> targets{{T / 3, T / 3 + 16}};
    probe::ProbeResult result;
    // The first probe is untimed (its kernels' first run) and gives the memory; the second one
    // is timed. On the CPU the heap sampler's thread would disturb a timed run.
    PhaseMemory probe_memory;
    if (loaded.device.is_cuda()) {
      probe_memory = measurePhase(loaded.device, [&] { probe.measure({T - 1}, targets); });
    } else {
      probe_memory.extra_bytes = peakHeapBytesDuring([&] { probe.measure({T - 1}, targets); });
    }
    const double probe_s =
        timeSeconds(loaded.device, [&] { result = probe.measure({T - 1}, targets); });
    // A heatmap window of 1,024 keys as the view asks for one: the last queries (as many as a
    // window may have, probe_bounds.h) over the last 1,024 keys of the last layer, averaged over
    // heads.
    const Span keys{T - std::min<std::int64_t>(1024, T), T};
    const Span queries{T - std::min<std::int64_t>(probe::kMaxWindowQueries, T), T};
    const int last_layer = static_cast<int>(lm.numLayers()) - 1;
    const auto window = [&] { probe.window(last_layer, -1, queries, keys); };
    PhaseMemory window_memory;
    if (loaded.device.is_cuda()) {
      window_memory = measurePhase(loaded.device, window);
    } else {
      window_memory.extra_bytes = peakHeapBytesDuring(window);
    }
    const double window_s = timeSeconds(loaded.device, window);
    const double full_matrix = static_cast<double>(T) * T * 4 * c.num_attention_heads;
    nlohmann::json row = bench.header;
    row.update({{"context", T},
                {"prefill_seconds", prefill_s},
                {"probe_seconds", probe_s},
                {"probe_over_prefill", probe_s / prefill_s},
                {"window_queries", queries.size()},
                {"window_keys", keys.size()},
                {"window_seconds", window_s},
                {"kv_cache_bytes", static_cast<double>(cache.bytes())},
                {"one_layer_scores_bytes", full_matrix},
                {"prefill_peak_bytes", jsonNumber(prefill_memory.extra_bytes)},
                {"prefill_peak_device_bytes", jsonNumber(prefill_memory.device_peak_bytes)},
                {"probe_peak_bytes", jsonNumber(probe_memory.extra_bytes)},
                {"probe_peak_device_bytes", jsonNumber(probe_memory.device_peak_bytes)},
                {"window_peak_bytes", jsonNumber(window_memory.extra_bytes)},
                {"window_peak_device_bytes", jsonNumber(window_memory.device_peak_bytes)},
                {"mean_target_mass", result.mean_mass}});
    if (options.json) {
      std::cout << row.dump() << std::endl;
      continue;
    }
    std::cout << "T=" << T << ": prefill " << std::setprecision(2) << prefill_s
              << " s, probe of the last query " << std::setprecision(4) << probe_s << " s = "
              << std::setprecision(2) << 100 * probe_s / prefill_s << "% of the prefill; probe "
              << (loaded.device.is_cuda() ? "device" : "heap") << " +"
              << formatBytes(probe_memory.extra_bytes) << " vs "
              << formatBytes(full_matrix) << " for one layer's T×T fp32 scores over "
              << c.num_attention_heads << " heads; KV cache "
              << formatBytes(static_cast<double>(cache.bytes())) << "; heatmap window of "
              << queries.size() << " queries × " << keys.size() << " keys "
              << std::setprecision(3) << window_s << " s, +" << formatBytes(window_memory.extra_bytes);
    if (loaded.device.is_cuda()) {
      std::cout << "; peak device memory: prefill " << formatBytes(prefill_memory.device_peak_bytes)
                << ", probe " << formatBytes(probe_memory.device_peak_bytes) << ", window "
                << formatBytes(window_memory.device_peak_bytes);
    }
    std::cout << "; mean target mass " << std::setprecision(5) << result.mean_mass << "\n";
  }
}

void addSpeedCommands(CLI::App& app, int& exit_code) {
  CLI::App& bench = benchCommand(app);
  auto options = std::make_shared<SpeedOptions>();
  auto* prefill = bench.add_subcommand(
      "prefill", "Prefill speed against the machine's matmul rate and, given --peak-tflops, as MFU");
  auto* decode = bench.add_subcommand(
      "decode", "Prefill, then decode speed and, given --peak-gbps, the bandwidth fraction");
  for (auto* command : {prefill, decode}) {
    addBenchModelOptions(command, options->model);
    command->add_option("--tokens", options->tokens,
                        "Prompt lengths, each run on its own (8192,32768 or 8192 32768)")
        ->delimiter(',')
        ->capture_default_str();
    // Both peaks on both commands, so that one command line fits both; prefill uses the first
    // (MFU), decode both (its prefill's MFU, its own bandwidth fraction).
    command->add_option("--peak-tflops", options->peak_tflops,
                        "The card's dense bf16 peak in TFLOP/s (H100 SXM: 989), for the prefill's "
                        "MFU; 0: unknown")
        ->capture_default_str();
    command->add_option("--peak-gbps", options->peak_gbps,
                        "The card's memory bandwidth in GB/s (H100 SXM: 3350), for the fraction "
                        "of it decode uses; 0: unknown")
        ->capture_default_str();
    command->add_flag("--json", options->json, "One JSON object per length, one per line");
    command->add_option("--chunk", options->chunk,
                        "Tokens per prefill forward; 0: the engine's default (512 on the CPU, 8192 on CUDA)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
  }
  for (auto* command : {prefill, decode}) {
    command->add_option("--trace", options->trace,
                        "Record the timed prefills and decodes with libtorch's profiler into this "
                        "Chrome trace JSON (every kernel's device time on CUDA; scripts/trace-summary "
                        "sums it); the timings then include the profiler's overhead");
  }
  decode->add_option("--decode-tokens", options->decode_tokens, "Tokens to decode (timed)")
      ->capture_default_str();
  decode->add_option("--decode-path", options->decode_path,
                     "graph: replay a captured CUDA graph where one applies; eager: op by op; "
                     "auto: as generation decides (the graph up to 32,768 positions). The JSON's "
                     "decode_path says which ran")
      ->check(CLI::IsMember({"auto", "graph", "eager"}))
      ->capture_default_str();
  decode
      ->add_option("--sampling", options->sampling,
                   "greedy, or draws with the paper's thinking (temperature 0.6, top-p 0.95, "
                   "top-k 20) or non-thinking (0.7, 0.8, 20) settings, chosen on the host "
                   "every step; the timings include the draws")
      ->check(CLI::IsMember({"greedy", "thinking", "non-thinking"}))
      ->capture_default_str();
  decode->add_flag("--probe-steps", options->probe_steps,
                   "Probe every decode step's query (target mass, margins) against 16 target keys "
                   "a third of the way in, as thinking runs do; the timings include the probes");
  setCommandAction(prefill, exit_code, [options] { benchPrefill(*options, false); });
  setCommandAction(decode, exit_code, [options] { benchPrefill(*options, true); });
  auto* probe = bench.add_subcommand(
      "probe", "The answer-query probe's time and memory as a fraction of the prefill's");
  addBenchModelOptions(probe, options->model);
  probe->add_option("--lengths", options->lengths, "Context lengths (4096,16384 or 4096 16384)")
      ->delimiter(',')
      ->capture_default_str();
  probe->add_flag("--json", options->json, "One JSON object per length, one per line");
  setCommandAction(probe, exit_code, [options] { benchProbe(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(90, addSpeedCommands);

}  // namespace studio::cli

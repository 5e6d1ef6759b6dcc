// studio-cli bench prefill | decode | probe: the engine's speed, each next to this machine's own
// fp32 matmul rate (the ratio is what travels between machines), and the probe's cost and memory
// against the prefill's.

#include <iomanip>
#include <iostream>

#include "app/cli/bench_support.h"
#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "core/engine/flop_model.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "core/probe/attention_probe.h"

namespace studio::cli {

namespace {

struct SpeedOptions {
  BenchModelOptions model;
  std::int64_t tokens = 2048;
  std::int64_t decode_tokens = 32;
  std::vector<std::int64_t> lengths{4096, 16384};
};

std::vector<std::int64_t> randomIds(std::int64_t count, std::int64_t vocab) {
  const torch::Tensor ids = torch::randint(vocab, {count}, torch::TensorOptions().dtype(torch::kInt64));
  return std::vector<std::int64_t>(ids.data_ptr<std::int64_t>(), ids.data_ptr<std::int64_t>() + count);
}

void printHeader(const model::LoadedModel& loaded, double machine_gflops) {
  const auto& c = loaded.config;
  std::cout << "model: " << (loaded.dir.empty() ? "random weights" : loaded.dir) << ", "
            << c.num_hidden_layers << " layers, hidden " << c.hidden_size << ", "
            << std::setprecision(3) << static_cast<double>(c.parameterCount()) / 1e6
            << "M parameters, " << model::dtypeName(loaded.dtype) << " on "
            << loaded.device.str() << ", " << torch::get_num_threads() << " threads\n"
            << "machine fp32 matmul (2048²): " << std::fixed << std::setprecision(1)
            << machine_gflops << " GFLOP/s\n";
}

void benchPrefill(const SpeedOptions& options, bool decode) {
  if (options.tokens < 1) throwArgument("--tokens", "must be at least 1");
  const auto loaded = loadBenchModel(options.model);
  const double machine = matmulGflops(loaded->device);
  printHeader(*loaded, machine);
  const engine::FlopShape shape = engine::FlopShape::of(loaded->config);
  const auto ids = randomIds(options.tokens, loaded->config.vocab_size);
  torch::NoGradGuard no_grad;
  model::CausalLMImpl& lm = *loaded->lm;
  {  // warm-up on a short input
    model::ModelState cache(lm.numLayers());
    model::prefill(lm, cache, std::vector<std::int64_t>(ids.begin(), ids.begin() + std::min<std::int64_t>(64, options.tokens)));
  }
  model::ModelState cache(lm.numLayers());
  torch::Tensor logits;
  const double prefill_s = timeSeconds(loaded->device, [&] { logits = model::prefill(lm, cache, ids); });
  const double prefill_flops = engine::prefillFlops(shape, static_cast<double>(options.tokens));
  const double prefill_gflops = prefill_flops / prefill_s / 1e9;
  std::cout << "prefill " << options.tokens << " tokens: " << std::setprecision(3) << prefill_s
            << " s, " << std::setprecision(1) << options.tokens / prefill_s << " tokens/s, "
            << prefill_gflops << " GFLOP/s (App. 10 model), " << std::setprecision(2)
            << prefill_gflops / machine << "× the matmul rate\n";
  if (!decode) return;
  const double decode_s = timeSeconds(loaded->device, [&] {
    for (std::int64_t i = 0; i < options.decode_tokens; ++i) {
      logits = model::decodeStep(lm, cache, logits.argmax().item<std::int64_t>());
    }
  });
  const double decode_flops = engine::generationFlops(shape, static_cast<double>(options.tokens),
                                                      static_cast<double>(options.decode_tokens));
  const double decode_gflops = decode_flops / decode_s / 1e9;
  std::cout << "decode " << options.decode_tokens << " tokens after " << options.tokens << ": "
            << std::setprecision(1) << options.decode_tokens / decode_s << " tokens/s, "
            << decode_gflops << " GFLOP/s, " << std::setprecision(3) << decode_gflops / machine
            << "× the matmul rate\n";
}

void benchProbe(const SpeedOptions& options) {
  const auto loaded = loadBenchModel(options.model);
  printHeader(*loaded, matmulGflops(loaded->device));
  model::CausalLMImpl& lm = *loaded->lm;
  const auto& c = loaded->config;
  for (const std::int64_t T : options.lengths) {
    if (T < 64) throwArgument("--lengths", "each length must be at least 64");
    const auto ids = randomIds(T, c.vocab_size);
    torch::NoGradGuard no_grad;
    model::ModelState cache(lm.numLayers());
    const double prefill_s = timeSeconds(loaded->device, [&] { model::prefill(lm, cache, ids); });
    const probe::AttentionProbe probe(lm, cache, ids);
    const std::vector<Span> targets{{T / 3, T / 3 + 16}};
    probe::ProbeResult result;
    const double probe_s =
        timeSeconds(loaded->device, [&] { result = probe.measure({T - 1}, targets); });
    // A second, untimed probe for its memory: the sampling thread would disturb the timing.
    const double probe_extra = peakHeapBytesDuring([&] { probe.measure({T - 1}, targets); });
    const double full_matrix = static_cast<double>(T) * T * 4 * c.num_attention_heads;
    std::cout << "T=" << T << ": prefill " << std::setprecision(2) << prefill_s << " s, probe of the last query "
              << std::setprecision(4) << probe_s << " s = " << std::setprecision(2)
              << 100 * probe_s / prefill_s << "% of the prefill; probe heap +"
              << std::setprecision(1) << probe_extra / 1048576
              << " MiB vs " << full_matrix / 1048576 << " MiB for one layer's T×T fp32 scores over "
              << c.num_attention_heads << " heads; KV cache " << static_cast<double>(cache.bytes()) / 1048576
              << " MiB; mean target mass " << std::setprecision(5) << result.mean_mass << "\n";
  }
}

void addSpeedCommands(CLI::App& app, int& exit_code) {
  CLI::App& bench = benchCommand(app);
  auto options = std::make_shared<SpeedOptions>();
  auto* prefill = bench.add_subcommand("prefill", "Prefill speed against the machine's matmul rate");
  auto* decode = bench.add_subcommand("decode", "Prefill, then decode speed");
  for (auto* command : {prefill, decode}) {
    addBenchModelOptions(command, options->model);
    command->add_option("--tokens", options->tokens, "Prompt tokens")->capture_default_str();
  }
  decode->add_option("--decode-tokens", options->decode_tokens, "Tokens to decode")
      ->capture_default_str();
  setCommandAction(prefill, exit_code, [options] { benchPrefill(*options, false); });
  setCommandAction(decode, exit_code, [options] { benchPrefill(*options, true); });
  auto* probe = bench.add_subcommand(
      "probe", "The answer-query probe's time and memory as a fraction of the prefill's");
  addBenchModelOptions(probe, options->model);
  probe->add_option("--lengths", options->lengths, "Context lengths (4096,16384 or 4096 16384)")
      ->delimiter(',')
      ->capture_default_str();
  setCommandAction(probe, exit_code, [options] { benchProbe(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(90, addSpeedCommands);

}  // namespace studio::cli

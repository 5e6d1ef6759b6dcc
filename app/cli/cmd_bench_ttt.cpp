// studio-cli bench ttt: TTT-Linear and TTT-MLP against the Qwen3 layout of the same width and
// depth (random weights, the 20m shapes; or model folders given with --models, such as the demo
// models): prefill and decode speed along the context and the model state's memory. A TTT layer's cost per token and its state do not grow with the context;
// attention's do.

#include <filesystem>
#include <iomanip>
#include <iostream>

#include "app/cli/bench_support.h"
#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "core/common/error.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "core/model/ttt_scan.h"

namespace studio::cli {

namespace {

struct TttBenchOptions {
  std::string device = "cpu";
  std::string dtype;
  std::vector<std::int64_t> lengths{2048, 8192, 32768};
  std::int64_t decode_tokens = 16;
  std::vector<std::string> shapes{"20m", "20m-ttt-linear", "20m-ttt-mlp"};
  std::vector<std::string> models;  // folders, instead of the shapes
};

void benchTtt(const TttBenchOptions& options) {
  for (const std::int64_t T : options.lengths) {
    if (T < 16) throwArgument("--lengths", "each length must be at least 16");
  }
  if (options.decode_tokens < 1) throwArgument("--decode-tokens", "must be at least 1");
  const torch::Device device = model::parseDevice(options.device);
  std::cout << "prefill inner loop: TTT-Linear " << model::tttScanPathName(device, false)
            << ", TTT-MLP " << model::tttScanPathName(device, true) << "\n"
            << "shape            tokens   prefill tok/s   decode tok/s   state MiB\n";
  const bool folders = !options.models.empty();
  for (const std::string& entry : folders ? options.models : options.shapes) {
    BenchModelOptions model;
    if (folders) {
      model.model.model = entry;
    } else {
      model.shape = entry;
    }
    std::string shape = entry;  // a folder goes by its name
    if (folders) {
      while (shape.size() > 1 && shape.back() == '/') shape.pop_back();
      shape = std::filesystem::path(shape).filename().string();
    }
    model.model.device = options.device;
    model.model.dtype = options.dtype;
    const auto loaded = loadBenchModel(model);
    model::CausalLMImpl& lm = *loaded->lm;
    torch::NoGradGuard no_grad;
    {  // warm-up
      model::ModelState warm(lm.numLayers());
      model::prefill(lm, warm, std::vector<std::int64_t>(64, 1));
    }
    for (const std::int64_t T : options.lengths) {
      const torch::Tensor random = torch::randint(loaded->config.vocab_size, {T}, torch::kInt64);
      const std::vector<std::int64_t> ids(random.data_ptr<std::int64_t>(),
                                          random.data_ptr<std::int64_t>() + T);
      model::ModelState state(lm.numLayers());
      torch::Tensor logits;
      const double prefill_s =
          timeSeconds(loaded->device, [&] { logits = model::prefill(lm, state, ids); });
      const double decode_s = timeSeconds(loaded->device, [&] {
        for (std::int64_t i = 0; i < options.decode_tokens; ++i) {
          logits = model::decodeStep(lm, state, logits.argmax().item<std::int64_t>());
        }
      });
      std::cout << std::left << std::setw(16) << shape << std::right << std::setw(7) << T
                << std::fixed << std::setprecision(1) << std::setw(16) << T / prefill_s
                << std::setw(15) << options.decode_tokens / decode_s << std::setw(12)
                << std::setprecision(2) << static_cast<double>(state.bytes()) / 1048576 << "\n"
                << std::flush;
    }
  }
}

void addBenchTttCommand(CLI::App& app, int& exit_code) {
  CLI::App& bench = benchCommand(app);
  auto options = std::make_shared<TttBenchOptions>();
  auto* command = bench.add_subcommand(
      "ttt", "TTT-Linear and TTT-MLP against the Qwen3 layout of the same size: prefill and "
             "decode tokens/s and state memory along the context");
  command->add_option("--lengths", options->lengths, "Context lengths (2048,8192,32768)")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--decode-tokens", options->decode_tokens, "Tokens decoded after each")
      ->capture_default_str();
  command->add_option("--shapes", options->shapes, "Shapes to compare")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--models", options->models,
                      "Model folders to compare instead of the shapes (the demo models: "
                      "resources/models/demo-qwen3,resources/models/demo-ttt-linear,...)")
      ->delimiter(',');
  command->add_option("--device", options->device, "Device to run on")
      ->check(deviceSpelling())
      ->capture_default_str();
  command->add_option("--dtype", options->dtype, "f32, bf16 or f16")
      ->transform(dtypeSpelling());
  setCommandAction(command, exit_code, [options] { benchTtt(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(166, addBenchTttCommand);

}  // namespace studio::cli

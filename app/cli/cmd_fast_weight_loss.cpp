// studio-cli fast-weight-loss: a TTT model's inner reconstruction error along a sequence (TTT
// paper Fig. 5 and 17; SPEC §4): per layer and token at W_0, at the start of the token's
// mini-batch and at its own weights after its update.

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <numeric>
#include <set>

#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "core/common/error.h"
#include "core/model/inference.h"

namespace studio::cli {

namespace {

struct FastWeightLossOptions {
  ModelOptions model;
  std::string text;
  std::string ids;
  std::string layers;  // empty: every TTT layer
  bool json = false;
};

double mean(const std::vector<double>& values) {
  return values.empty() ? 0.0
                        : std::accumulate(values.begin(), values.end(), 0.0) /
                              static_cast<double>(values.size());
}

void runFastWeightLoss(const FastWeightLossOptions& options) {
  const LoadedForCli loaded = loadForCli(options.model);
  const model::ModelConfig& config = loaded.model->config;
  std::set<int> wanted;
  const std::vector<std::int64_t> asked =
      options.layers.empty() ? std::vector<std::int64_t>{} : parseIntList(options.layers, "--layers");
  for (const std::int64_t layer : asked) {
    if (layer < 0 || layer >= config.num_hidden_layers) {
      throwArgument("--layers", "layer " + std::to_string(layer) + " is not in [0, " +
                                    std::to_string(config.num_hidden_layers) + ")");
    }
    if (config.mixer(static_cast<int>(layer)) == model::MixerKind::Attention) {
      throwArgument("--layers", "layer " + std::to_string(layer) +
                                    " is an attention layer; it has no fast weights");
    }
    wanted.insert(static_cast<int>(layer));
  }
  if (config.attentionLayerCount() == config.num_hidden_layers) {
    throwError(ErrorKind::Unsupported, loaded.model->dir, "config.json",
               "the model has no TTT layers (every layer is attention): no fast weights");
  }
  const CliInput input = readInput(loaded, options.text, options.ids);

  torch::NoGradGuard no_grad;
  model::ModelState state(loaded.model->lm->numLayers());
  model::FastWeightLosses losses;
  model::PrefillOptions prefill;
  prefill.fast_weight_losses = &losses;
  model::prefill(*loaded.model->lm, state, input.ids, prefill);

  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t l = 0; l < losses.layers.size(); ++l) {
    const auto& layer = losses.layers[l];
    if (layer.positions.empty()) continue;
    if (!wanted.empty() && !wanted.count(static_cast<int>(l))) continue;
    if (options.json) {
      layers.push_back({{"layer", l},
                        {"init", layer.init},
                        {"before", layer.before},
                        {"after", layer.after}});
    } else {
      std::cout << "layer " << l << ": mean over " << layer.positions.size()
                << " tokens  init " << std::setprecision(5) << mean(layer.init) << "  before "
                << mean(layer.before) << "  after " << mean(layer.after) << "\n";
    }
  }
  if (options.json) std::cout << nlohmann::json{{"layers", layers}}.dump() << "\n";
}

void addFastWeightLossCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "fast-weight-loss",
      "A TTT model's inner loss per layer and token: at W_0 (init), at the start of the token's "
      "mini-batch (before) and after its update (after)");
  auto options = std::make_shared<FastWeightLossOptions>();
  addModelOptions(command, options->model);
  auto* text = command->add_option("--text", options->text, "The sequence as text");
  auto* ids = command->add_option("--ids", options->ids, "The sequence as token ids: 1,2,3");
  text->excludes(ids);
  command->add_option("--layers", options->layers, "TTT layers to report: 0,1 (default: all)");
  command->add_flag("--json", options->json,
                    "Print {\"layers\":[{\"layer\",\"init\":[T],\"before\":[T],\"after\":[T]}]}");
  setCommandAction(command, exit_code, [options] { runFastWeightLoss(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(33, addFastWeightLossCommand);

}  // namespace studio::cli

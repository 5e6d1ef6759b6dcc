// studio-cli forward: the logits of chosen positions, as JSON (what a reference implementation
// is compared against).

#include <nlohmann/json.hpp>

#include <iostream>

#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "core/common/error.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"

namespace studio::cli {

namespace {

struct ForwardOptions {
  ModelOptions model;
  std::string text;
  std::string ids;
  std::string positions = "last";
  bool json = false;
};

void runForward(const ForwardOptions& options) {
  const LoadedForCli loaded = loadForCli(options.model);
  const CliInput input = readInput(loaded, options.text, options.ids);
  const auto T = static_cast<std::int64_t>(input.ids.size());
  std::vector<std::int64_t> positions;
  if (options.positions == "all") {
    for (std::int64_t i = 0; i < T; ++i) positions.push_back(i);
  } else if (options.positions == "last") {
    positions.push_back(T - 1);
  } else {
    positions = parseIntList(options.positions, "--positions");
    for (const std::int64_t p : positions) {
      if (p < 0 || p >= T) {
        throwArgument("--positions", "position " + std::to_string(p) + " is outside the input [0, " +
                                         std::to_string(T) + ")");
      }
    }
  }

  torch::NoGradGuard no_grad;
  model::CausalLMImpl& lm = *loaded.model->lm;
  const torch::Tensor index = torch::tensor(positions, torch::kInt64).to(lm.device());
  torch::Tensor hidden;  // [n, hidden]
  if (lm.config().allAttention()) {
    // A prefill, then the hidden states of the chosen positions recomputed over the frozen state:
    // memory for the chosen positions only.
    model::ModelState state(lm.numLayers());
    model::prefill(lm, state, input.ids);
    model::ForwardContext context;
    context.mode = model::AttentionMode::Frozen;
    context.state = &state;
    context.positions = index;
    std::vector<std::int64_t> chosen;
    for (const std::int64_t p : positions) chosen.push_back(input.ids[p]);
    const torch::Tensor tokens = torch::tensor(chosen, torch::kInt64).to(lm.device()).unsqueeze(0);
    hidden = lm.forward(tokens, context).squeeze(0);
  } else {
    // TTT layers have no query-only forward: one pass over the whole input (linear in T).
    model::ForwardContext context;
    const torch::Tensor tokens = torch::tensor(input.ids, torch::kInt64).to(lm.device()).unsqueeze(0);
    hidden = lm.forward(tokens, context).squeeze(0).index_select(0, index);
  }
  const torch::Tensor logits = lm.logits(hidden).to(torch::kCPU, torch::kFloat64);  // [n, V]

  nlohmann::json out = {{"ids", input.ids}, {"logits", nlohmann::json::array()}};
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const torch::Tensor row = logits[static_cast<std::int64_t>(i)].contiguous();
    const double* data = row.data_ptr<double>();
    out["logits"].push_back(
        {{"pos", positions[i]}, {"values", std::vector<double>(data, data + row.numel())}});
  }
  std::cout << (options.json ? out.dump() : out.dump(1)) << "\n";
}

void addForwardCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("forward", "Print the logits of chosen positions as JSON");
  auto options = std::make_shared<ForwardOptions>();
  addModelOptions(command, options->model);
  command->add_option("--text", options->text, "Input text (needs the model's tokenizer.json)");
  command->add_option("--ids", options->ids, "Input token ids: 1,2,3");
  command->add_option("--positions", options->positions, "all, last, or i,j,...")
      ->capture_default_str();
  command->add_flag("--json", options->json, "Compact JSON on one line");
  setCommandAction(command, exit_code, [options] { runForward(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(30, addForwardCommand);

}  // namespace studio::cli

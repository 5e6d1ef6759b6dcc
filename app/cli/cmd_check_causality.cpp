// studio-cli check-causality: the leak check (core/model/causality_check.h) on a model folder.
// Exit 0 when every earlier position's logits (and, for SR-TTT, surprisal and the routing of the
// windows that end before the change) stayed bit-identical, 1 when one did not.

#include <nlohmann/json.hpp>

#include <iostream>

#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "core/model/causality_check.h"

namespace studio::cli {

namespace {

struct CausalityOptions {
  ModelOptions model;
  std::int64_t length = 64;
  std::uint64_t seed = 0;
  bool json = false;
};

int runCheckCausality(const CausalityOptions& options) {
  const LoadedForCli loaded = loadForCli(options.model);
  const model::CausalityReport report =
      model::checkCausality(*loaded.model->lm, options.length, options.seed);
  if (options.json) {
    std::cout << nlohmann::json{{"passed", report.passed},
                                {"length", report.length},
                                {"perturbed_from", report.perturbed_from},
                                {"first_leak", report.first_leak},
                                {"path", report.path},
                                {"quantity", report.quantity},
                                {"windows_compared", report.windows_compared},
                                {"max_difference", report.max_difference}}
                     .dump()
              << "\n";
  } else if (report.passed) {
    std::cout << "causal: changing tokens " << report.perturbed_from << ".." << report.length - 1
              << " left the logits of positions 0.." << report.perturbed_from - 1
              << " bit-identical (whole-sequence forward and decode)";
    if (report.windows_compared > 0) {
      std::cout << ", and their surprisal and the routing of " << report.windows_compared
                << " SR-TTT windows";
    }
    std::cout << "\n";
  } else {
    std::cout << "LEAK: changing tokens from " << report.perturbed_from << " changed the "
              << report.quantity << " of position " << report.first_leak << " (" << report.path
              << "; max logit difference " << report.max_difference << ")\n";
  }
  return report.passed ? kOk : kFailed;
}

void addCheckCausalityCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "check-causality",
      "Change the later half of a sequence; require the earlier logits (SR-TTT: also surprisal "
      "and routing) bit-identical (exit 1 when they are not)");
  auto options = std::make_shared<CausalityOptions>();
  addModelOptions(command, options->model);
  command->add_option("--length", options->length, "Sequence length")->capture_default_str();
  command->add_option("--seed", options->seed, "Seed of the random tokens")->capture_default_str();
  command->add_flag("--json", options->json, "Print the report as JSON");
  setCommandAction(command, exit_code,
                   [options, &exit_code] { exit_code = runCheckCausality(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(34, addCheckCausalityCommand);

}  // namespace studio::cli

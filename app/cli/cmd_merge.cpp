// studio-cli merge --out merged.sqlite A.sqlite B.sqlite ...: one session from several, such as
// the shard sessions of a Slurm sweep array (sessions/session_merge.h, docs/cluster.md).

#include <nlohmann/json.hpp>

#include <iostream>

#include "app/cli/cli_command.h"
#include "sessions/session_merge.h"

namespace studio::cli {

namespace {

struct MergeCommandOptions {
  std::string out;
  std::vector<std::string> inputs;
  bool replace = false;
  bool json = false;
};

void runMerge(const MergeCommandOptions& options) {
  const sessions::MergeReport report =
      sessions::mergeSessions(options.inputs, options.out, {options.replace});
  if (options.json) {
    nlohmann::json inputs = nlohmann::json::array();
    for (const sessions::MergeInputReport& input : report.inputs) {
      inputs.push_back({{"path", input.path},
                        {"runs_copied", input.runs_copied},
                        {"runs_already_merged", input.runs_already_merged},
                        {"cells_already_completed", input.cells_already_completed},
                        {"documents_added", input.documents_added},
                        {"models_added", input.models_added},
                        {"event_rows_copied", input.event_rows_copied}});
    }
    std::cout << nlohmann::json{{"out", options.out},
                                {"runs", report.runs},
                                {"documents", report.documents},
                                {"models", report.models},
                                {"event_rows", report.event_rows},
                                {"inputs", inputs}}
                     .dump()
              << "\n";
    return;
  }
  for (const sessions::MergeInputReport& input : report.inputs) {
    std::cout << input.path << ": " << input.runs_copied << " runs";
    if (input.runs_already_merged > 0) {
      std::cout << ", " << input.runs_already_merged << " already merged from an earlier input";
    }
    if (input.cells_already_completed > 0) {
      std::cout << ", " << input.cells_already_completed
                << " completed cells an earlier input completed too (left out)";
    }
    std::cout << "\n";
  }
  std::cout << options.out << ": " << report.runs << " runs, " << report.documents << " documents, "
            << report.models << " models, " << report.event_rows << " event rows\n";
}

void addMergeCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "merge", "Merge sessions (the shards of a Slurm sweep, say) into one new session");
  auto options = std::make_shared<MergeCommandOptions>();
  command->add_option("--out", options->out, "The merged session (written whole or not at all)")
      ->required();
  command->add_option("sessions", options->inputs, "The sessions to merge")->required();
  command->add_flag("--replace", options->replace, "Replace --out when it exists");
  command->add_flag("--json", options->json, "Print the report as JSON");
  setCommandAction(command, exit_code, [options] { runMerge(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(52, addMergeCommand);

}  // namespace studio::cli

// `studio-cli export`: writes what a session holds to files other tools read. One subcommand
// with one part per source: the session part (--session, --run/--all, --format, --out) is here;
// figures (--figure NAME) are meant to join as a second part of this same subcommand, with their
// own options struct, add function and run function, dispatched from the action in
// addExportCommand().

#include <iostream>
#include <memory>
#include <optional>

#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "sessions/session_export.h"
#include "sessions/session_store.h"

namespace studio::cli {

namespace {

struct SessionExportOptions {
  std::string session;
  std::int64_t run_id = 0;
  CLI::Option* run_option = nullptr;
  bool all = false;
  std::string format = "json";
  std::string out;
};

void addSessionExportOptions(CLI::App* command, SessionExportOptions& options) {
  command->add_option("--session", options.session, "The session file (.sqlite) to export from");
  options.run_option = command->add_option("--run", options.run_id, "Export this run (its id)");
  auto* all = command->add_flag("--all", options.all, "Export every run of the session");
  options.run_option->excludes(all);
  command
      ->add_option("--format", options.format,
                   "json (one document) or csv (a runs table "
                   "and one file per event table beside it)")
      ->check(CLI::IsMember({"json", "csv"}));
  command->add_option("--out", options.out,
                      "Output file; csv writes <stem>.<table>.csv files next to it");
}

bool sessionExportRequested(const SessionExportOptions& options) {
  return !options.session.empty() || options.all || options.run_option->count() > 0;
}

void runSessionExport(const SessionExportOptions& options) {
  if (options.session.empty()) throwArgument("--session", "the session file is required");
  if (!options.all && options.run_option->count() == 0) {
    throwArgument("--run/--all", "choose one run (--run ID) or every run (--all)");
  }
  if (options.out.empty()) throwArgument("--out", "the output file is required");
  sessions::OpenOptions open;
  open.access = sessions::OpenOptions::Access::ReadOnly;  // an export never changes the session
  const sessions::SessionStore store(options.session, open);
  const sessions::RunSelection runs =
      options.all ? sessions::RunSelection{} : sessions::RunSelection{options.run_id};
  const sessions::ExportSummary summary =
      options.format == "csv" ? sessions::exportSessionCsv(store, runs, options.out)
                              : sessions::exportSessionJson(store, runs, options.out);
  std::cout << "exported " << summary.runs << " run(s) and " << summary.events << " event(s) of "
            << options.session << " as " << options.format << ":\n";
  for (const std::string& file : summary.files) std::cout << "  " << file << "\n";
}

void addExportCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "export", "Export runs of a session (JSON or CSV) for analysis in other tools");
  auto session = std::make_shared<SessionExportOptions>();
  addSessionExportOptions(command, *session);
  setCommandAction(command, exit_code, [session] {
    if (!sessionExportRequested(*session)) {
      throwArgument("export", "nothing to export: give --session FILE with --run ID or --all");
    }
    runSessionExport(*session);
  });
}

}  // namespace

STUDIO_CLI_COMMAND(80, addExportCommand);

}  // namespace studio::cli

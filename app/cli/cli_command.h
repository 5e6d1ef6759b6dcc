#pragma once
// Shared plumbing of the studio-cli subcommands: each cmd_*.cpp adds one subcommand to the app.

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace studio::cli {

// Exit codes: 0 success, 1 the run itself failed (a wrong answer is not a failure), 2 bad input
// (arguments, files, configuration), 3 internal error, 130 cancelled.
enum ExitCode : int { kOk = 0, kFailed = 1, kBadInput = 2, kInternal = 3, kCancelled = 130 };

// Wraps a subcommand body: studio::Error and std::exception become a one-line message on stderr
// and the matching exit code, which is stored in `exit_code`.
void setCommandAction(CLI::App* command, int& exit_code, std::function<void()> body);

// Each subcommand. `exit_code` is where the subcommand's result goes.
void addVersionCommand(CLI::App& app, int& exit_code);

}  // namespace studio::cli

#pragma once
// Shared plumbing of the studio-cli subcommands. Each cmd_*.cpp defines one subcommand and
// registers it with STUDIO_CLI_COMMAND; main.cpp adds them all, in `order`, to the CLI11 app.

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace studio::cli {

// Exit codes: 0 success, 1 the run itself failed (a wrong answer is not a failure), 2 bad input
// (arguments, files, configuration), 3 internal error, 130 cancelled.
enum ExitCode : int { kOk = 0, kFailed = 1, kBadInput = 2, kInternal = 3, kCancelled = 130 };

// Adds one subcommand to `app`; its result goes to `exit_code`.
using CommandFactory = void (*)(CLI::App& app, int& exit_code);

// Called from static initialisers in this executable's own objects (never a library, where the
// linker could drop them). Returns true so it can initialise a static.
bool registerCommand(int order, CommandFactory factory);

// Adds every registered subcommand to `app`, in order.
void addRegisteredCommands(CLI::App& app, int& exit_code);

// llama.cpp's spellings, as its users type them: -m (--model), -p (--prompt), -n (--max-tokens),
// -s (--seed) and --temp (--temperature), added to every subcommand of `app` (at any depth) that
// has the long option and does not use the alias itself. An alias hands its values to the long
// option, so checks, defaults and errors are the long option's; the help lists it beside it.
// Call it once every command has been added.
void addLlamaCppAliases(CLI::App& app);

// The `bench` subcommand (created on first use): benchmarks add themselves below it as
// `studio-cli bench <name>`, each from its own cmd_bench_*.cpp.
CLI::App& benchCommand(CLI::App& app);

// Wraps a subcommand body: studio::Error and std::exception become a one-line message on stderr
// and the matching exit code. A body may also set `exit_code` itself.
void setCommandAction(CLI::App* command, int& exit_code, std::function<void()> body);

}  // namespace studio::cli

#define STUDIO_CLI_CONCAT_INNER(a, b) a##b
#define STUDIO_CLI_CONCAT(a, b) STUDIO_CLI_CONCAT_INNER(a, b)
// STUDIO_CLI_COMMAND(30, addProbeCommand): registers the factory at load time.
#define STUDIO_CLI_COMMAND(order, factory)                                     \
  static const bool STUDIO_CLI_CONCAT(studio_cli_registered_, __LINE__) = \
      ::studio::cli::registerCommand(order, factory)

// studio-cli: the headless face of the studio. Same engine, same sessions, no Qt.

#include <CLI/CLI.hpp>

#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "core/common/runtime.h"
#include "plugins/builtin_plugins.h"

int main(int argc, char** argv) {
  studio::tuneProcessEnvironment(argv);
  using namespace studio::cli;
  studio::initTorchRuntime();
  studio::plugins::registerBuiltinPlugins();

  CLI::App app{"TTT Studio, headless: inspect models, tokenize, probe attention, run and compare "
               "inference-time methods, sweep tasks, export sessions."};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print the help of every subcommand");

  int exit_code = kOk;
  addRegisteredCommands(app, exit_code);
  // The spellings researchers bring: Org/Name models, cuda:N, bfloat16, and llama.cpp's -m/-p/-n.
  adoptModelOptionSpellings(app);
  addLlamaCppAliases(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kOk : kBadInput;
  }
  return exit_code;
}

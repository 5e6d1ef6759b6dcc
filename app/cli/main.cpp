// studio-cli: the headless face of the studio. Same engine, same sessions, no Qt.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "core/common/runtime.h"
#include "core/model/kernel_switches.h"
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

  // A kernel switch set to a value it does not take would run the default kernels unnoticed.
  if (const auto problems = studio::model::kernelSwitchProblems(); !problems.empty()) {
    for (const std::string& problem : problems) {
      std::fprintf(stderr, "studio-cli: %s\n", problem.c_str());
    }
    return kBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kOk : kBadInput;
  }
  return exit_code;
}

#include "app/cli/cli_command.h"

#include <algorithm>
#include <iostream>
#include <utility>
#include <vector>

#include "core/common/error.h"

namespace studio::cli {

namespace {

int exitCodeFor(const Error& error) {
  switch (error.kind()) {
    case ErrorKind::Cancelled: return kCancelled;
    case ErrorKind::Internal: return kInternal;
    default: return kBadInput;
  }
}

// One line, whatever the message holds.
std::string oneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

std::vector<std::pair<int, CommandFactory>>& registeredCommands() {
  static std::vector<std::pair<int, CommandFactory>> commands;
  return commands;
}

}  // namespace

bool registerCommand(int order, CommandFactory factory) {
  registeredCommands().emplace_back(order, factory);
  return true;
}

void addRegisteredCommands(CLI::App& app, int& exit_code) {
  auto commands = registeredCommands();
  std::stable_sort(commands.begin(), commands.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, factory] : commands) factory(app, exit_code);
}

void addLlamaCppAliases(CLI::App& app) {
  static const std::pair<const char*, const char*> kAliases[] = {
      {"-m", "--model"},       {"-p", "--prompt"}, {"-n", "--max-tokens"},
      {"-s", "--seed"},        {"--temp", "--temperature"},
  };
  for (const auto& [alias, long_name] : kAliases) {
    CLI::Option* target = app.get_option_no_throw(long_name);
    if (target == nullptr || app.get_option_no_throw(alias) != nullptr) continue;
    // Parsed on its own, its values go straight to the long option, before any callback runs.
    app.add_option(alias,
                   [target](const CLI::results_t& values) {
                     for (const std::string& value : values) target->add_result(value);
                     return true;
                   },
                   std::string("Same as ") + long_name)
        ->trigger_on_parse()
        ->group("");  // hidden: the help shows it on the long option's line
    target->description(target->get_description() + " (also " + alias + ")");
  }
  for (CLI::App* sub : app.get_subcommands({})) addLlamaCppAliases(*sub);
}

CLI::App& benchCommand(CLI::App& app) {
  for (CLI::App* existing : app.get_subcommands({})) {
    if (existing->get_name() == "bench") return *existing;
  }
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks that print figures (tokens/s, "
                                                "GFLOP/s, ratios, peak memory)");
  bench->require_subcommand(1);
  return *bench;
}

void setCommandAction(CLI::App* command, int& exit_code, std::function<void()> body) {
  command->callback([&exit_code, body = std::move(body), name = command->get_name()]() {
    try {
      body();
    } catch (const Error& error) {
      std::cerr << "studio-cli " << name << ": " << oneLine(error.what()) << "\n";
      exit_code = exitCodeFor(error);
    } catch (const std::exception& error) {
      std::cerr << "studio-cli " << name << ": " << oneLine(error.what()) << "\n";
      exit_code = kInternal;
    }
  });
}

}  // namespace studio::cli

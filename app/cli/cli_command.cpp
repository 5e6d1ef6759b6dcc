#include "app/cli/cli_command.h"

#include <iostream>

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

}  // namespace

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

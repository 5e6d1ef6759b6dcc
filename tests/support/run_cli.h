#pragma once
// Runs the built studio-cli (or any command) and captures its exit code, stdout and stderr (tests
// of the command line, in any test folder).

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/test_paths.h"

namespace studio::test {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string studioCliPath() {
  return std::string(studio::test_paths::kBinaryDir) + "/../app/studio-cli";
}

// Runs a shell command line and captures its exit code, stdout and stderr.
inline CliRun runCommand(const std::string& shell_command) {
  // One stderr file per process and call: CTest runs test cases in parallel processes.
  static int call = 0;
  const auto err_path = std::filesystem::temp_directory_path() /
                        ("studio_cli_stderr_" + std::to_string(getpid()) + "_" +
                         std::to_string(++call) + ".txt");
  const std::string command = shell_command + " 2>" + err_path.string();
  CliRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[65536];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.out.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  {
    std::ifstream err(err_path);
    std::stringstream text;
    text << err.rdbuf();
    run.err = text.str();
  }
  std::filesystem::remove(err_path);
  return run;
}

// `arguments` are already shell-quoted.
inline CliRun runCli(const std::string& arguments) {
  return runCommand(studioCliPath() + " " + arguments);
}

}  // namespace studio::test

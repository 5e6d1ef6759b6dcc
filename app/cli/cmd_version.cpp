#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

#include "app/cli/cli_command.h"
#include "core/common/versions.h"

namespace studio::cli {

namespace {

void addVersionCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("version", "Print the versions of the studio, torch, Qt, "
                                                "SQLite and whether CUDA is available");
  auto as_json = std::make_shared<bool>(false);
  command->add_flag("--json", *as_json, "Print a JSON object");
  setCommandAction(command, exit_code, [as_json] {
    const VersionInfo info = versionInfo();
    if (*as_json) {
      nlohmann::json out = {{"studio", info.studio},
                            {"commit", info.commit},
                            {"torch", info.torch},
                            {"qt", info.qt},
                            {"sqlite", info.sqlite},
                            {"cuda_available", info.cuda_available},
                            {"cuda_devices", info.cuda_devices},
                            {"cuda_kernels", info.cuda_kernels},
                            {"cpu_threads", info.cpu_threads},
                            {"cpu_runtime", info.cpu_runtime}};
      std::cout << out.dump() << "\n";
      return;
    }
    for (const auto& [name, value] : versionRows(info)) {
      std::cout << name << ": " << value << "\n";
    }
  });
}

}  // namespace

STUDIO_CLI_COMMAND(900, addVersionCommand);

}  // namespace studio::cli

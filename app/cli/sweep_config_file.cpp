#include "app/cli/sweep_config_file.h"

#include <fstream>

#include "core/common/error.h"

namespace studio::cli {

nlohmann::json readSweepConfigJson(const std::string& path) {
  std::ifstream file(path);
  if (!file) throwError(ErrorKind::Io, path, "", "cannot open the sweep configuration");
  try {
    return nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& error) {
    throwError(ErrorKind::Format, path, "", std::string("not valid JSON: ") + error.what());
  }
}

engine::SweepConfig sweepConfigFrom(const nlohmann::json& json, const std::string& path) {
  try {
    return engine::SweepConfig::fromJson(json);
  } catch (const Error& error) {
    throwError(ErrorKind::Argument, path, error.field(), error.detail());
  }
}

}  // namespace studio::cli

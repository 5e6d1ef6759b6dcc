#include "app/cli/sweep_config_file.h"

#include "core/common/bounded_json.h"
#include "core/common/error.h"

namespace studio::cli {

nlohmann::json readSweepConfigJson(const std::string& path) {
  return readBoundedJsonFile(path, path);
}

engine::SweepConfig sweepConfigFrom(const nlohmann::json& json, const std::string& path) {
  try {
    return engine::SweepConfig::fromJson(json);
  } catch (const Error& error) {
    throwError(ErrorKind::Argument, path, error.field(), error.detail());
  }
}

}  // namespace studio::cli

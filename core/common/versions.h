#pragma once
// The versions the About box and `studio-cli version` print, from one place so they agree.

#include <string>
#include <utility>
#include <vector>

namespace studio {

struct VersionInfo {
  std::string studio;
  std::string commit;       // common/build_commit.h
  std::string torch;
  std::string sqlite;
  std::string qt;           // the Qt the GUI was built against, or "not built"
  bool cuda_available = false;
  int cuda_devices = 0;
  bool cuda_kernels = false;  // kernels/ compiled into this build
  std::string cpu_threads;
  std::string cpu_runtime;  // allocator and OpenMP settings (runtime.h)
};

VersionInfo versionInfo();

// "name: value" rows in a fixed order, for text output.
std::vector<std::pair<std::string, std::string>> versionRows(const VersionInfo& info);

}  // namespace studio

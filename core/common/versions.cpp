#include "core/common/versions.h"

#include <sqlite3.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "core/common/build_commit.h"
#include "core/common/runtime.h"
#include "studio/build_info.h"

namespace studio {

VersionInfo versionInfo() {
  VersionInfo info;
  info.studio = STUDIO_VERSION_STRING;
  info.commit = buildCommit();
  info.torch = TORCH_VERSION;
  info.sqlite = SQLITE_VERSION;  // the header the sessions library is compiled against
  info.qt = STUDIO_GUI_BUILT ? std::string(STUDIO_QT_VERSION_STRING) : std::string("not built");
  info.cuda_available = torch::cuda::is_available();
  info.cuda_devices = info.cuda_available ? static_cast<int>(torch::cuda::device_count()) : 0;
  info.cuda_kernels = STUDIO_CUDA_KERNELS_BUILT != 0;
  info.cpu_threads = std::to_string(at::get_num_threads());
  info.cpu_runtime = runtimeTuning();
  return info;
}

std::vector<std::pair<std::string, std::string>> versionRows(const VersionInfo& info) {
  std::string cuda = info.cuda_available
                         ? "available (" + std::to_string(info.cuda_devices) + " device(s))"
                         : "not available";
  return {
      {"TTT Studio", info.studio},
      {"commit", info.commit},
      {"torch", info.torch},
      {"Qt", info.qt},
      {"SQLite", info.sqlite},
      {"CUDA", cuda},
      {"CUDA kernels", info.cuda_kernels ? "built" : "not built"},
      {"CPU threads", info.cpu_threads},
      {"CPU runtime", info.cpu_runtime},
  };
}

}  // namespace studio

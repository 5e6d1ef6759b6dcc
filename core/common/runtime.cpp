#include "core/common/runtime.h"

#include <torch/torch.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

namespace studio {

namespace {

constexpr const char* kTunedMarker = "STUDIO_RUNTIME_TUNED";

struct TunedVariable {
  const char* name;
  const char* value;
};

// Large tensors stay in the process's heap (no munmap and page faults per forward); idle OpenMP
// threads sleep instead of spinning next to the BLAS threads.
constexpr TunedVariable kTuned[] = {
    {"MALLOC_MMAP_THRESHOLD_", "4294967296"},
    {"MALLOC_TRIM_THRESHOLD_", "68719476736"},
    {"OMP_WAIT_POLICY", "PASSIVE"},
};

}  // namespace

void tuneProcessEnvironment(char** argv) {
  if (std::getenv(kTunedMarker)) return;  // already tuned, or turned off by the user
  bool changed = false;
  for (const TunedVariable& variable : kTuned) {
    if (std::getenv(variable.name)) continue;
    ::setenv(variable.name, variable.value, 0);
    changed = true;
  }
  ::setenv(kTunedMarker, "1", 0);
  if (!changed || argv == nullptr) return;
  ::execv("/proc/self/exe", argv);
  // exec failed (no /proc, say): carry on untuned rather than not at all.
}

std::string runtimeTuning() {
  std::string out;
  for (const TunedVariable& variable : kTuned) {
    const char* value = std::getenv(variable.name);
    if (!out.empty()) out += ", ";
    out += std::string(variable.name) + (value ? std::string("=") + value : " unset");
  }
  return out;
}

void initTorchRuntime() {
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  if (const char* env = std::getenv("STUDIO_THREADS")) {
    threads = std::atoi(env);
  } else if (std::getenv("OMP_NUM_THREADS")) {
    return;  // the user chose; torch reads it itself
  }
  if (threads > 0) at::set_num_threads(threads);
}

}  // namespace studio

#include "core/common/runtime.h"

#include <torch/torch.h>

#include <cstdlib>
#include <thread>

namespace studio {

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

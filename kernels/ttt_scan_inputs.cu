#include "kernels/ttt_scan_inputs.h"

#include <cuda_runtime.h>

namespace studio::kernels {

bool tttScanSharedMemoryFits(std::int64_t bytes) {
  int device = 0, limit = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
      cudaSuccess) {
    return false;
  }
  return bytes <= limit;
}

bool tttScanCountsValid(const TttScanInputs& in) {
  return in.heads >= 1 && in.batch_heads >= 1 && in.batch_heads % in.heads == 0 &&
         in.mini_batch >= 1 && in.tokens >= 0 && in.tokens % in.mini_batch == 0;
}

}  // namespace studio::kernels

#pragma once
// Device-side conversions between the element types the kernels take (element_type.h) and the
// float32 they compute in (fromFloat rounds to nearest even, as libtorch's casts do), and the
// host-side dispatch from an ElementType to a kernel template.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/element_type.h"

namespace studio::kernels {

__device__ inline float toFloat(float x) { return x; }
__device__ inline float toFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ inline float toFloat(__half x) { return __half2float(x); }

template <typename T> __device__ T fromFloat(float x);
template <> __device__ inline float fromFloat<float>(float x) { return x; }
template <> __device__ inline __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) { return __float2bfloat16(x); }
template <> __device__ inline __half fromFloat<__half>(float x) { return __float2half(x); }

// Calls launch(T{}) with T the C++ type `type` names and returns what it returns (an entry
// point's error or nullptr).
template <typename Launch>
const char* dispatchElementType(ElementType type, Launch&& launch) {
  switch (type) {
    case ElementType::Float32: return launch(float{});
    case ElementType::BFloat16: return launch(__nv_bfloat16{});
    case ElementType::Float16: return launch(__half{});
  }
  return "unknown element type";
}

}  // namespace studio::kernels

#pragma once
// Device-side conversions between the element types the kernels take (element_type.h) and the
// float32 they compute in; fromFloat rounds to nearest even, as libtorch's casts do.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace studio::kernels {

__device__ inline float toFloat(float x) { return x; }
__device__ inline float toFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ inline float toFloat(__half x) { return __half2float(x); }

template <typename T> __device__ T fromFloat(float x);
template <> __device__ inline float fromFloat<float>(float x) { return x; }
template <> __device__ inline __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) { return __float2bfloat16(x); }
template <> __device__ inline __half fromFloat<__half>(float x) { return __float2half(x); }

}  // namespace studio::kernels

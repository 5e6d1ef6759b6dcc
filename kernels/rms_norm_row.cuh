#pragma once
// An RMSNorm row held in registers by a group of lanes, 16-byte vectors at a time: how
// rms_norm.cu's vector kernel and decode_prologue.cu's q/k norms load, sum and round a row, in
// one place so that both give the same bits. The row's vectors lane, lane + group, … belong to a
// lane; it sums their squares in float32 in that order, then the group adds its lanes' sums with
// xor shuffles (a group wider than a warp also adds its warps' sums, in rms_norm.cu).

#include "kernels/element_convert.cuh"

namespace studio::kernels {

constexpr int kRmsNormMaxVectorsPerThread = 4;
constexpr int kRmsNormMaxGroup = 256;

template <typename T>
struct alignas(16) Vector {
  static constexpr int kSize = 16 / sizeof(T);
  T v[kSize];
};

// The lanes a row of `vectors` 16-byte vectors takes, a power of two up to kRmsNormMaxGroup: as
// few as hold kRmsNormMaxVectorsPerThread each, then one vector a lane up to a warp.
__host__ __device__ inline int rmsNormGroup(int vectors) {
  int group = 1;
  while (group < kRmsNormMaxGroup && group * kRmsNormMaxVectorsPerThread < vectors) group *= 2;
  while (group < 32 && group < vectors) group *= 2;  // one vector per lane where the row has them
  return group;
}

// The float32 sum of the squares of this lane's vectors of a row (`held`, those at lane,
// lane + group, … of `vectors`), element by element in order; 0 where the lane is not `active`.
template <typename T>
__device__ __forceinline__ float heldSquares(const Vector<T> (&held)[kRmsNormMaxVectorsPerThread],
                                             int vectors, int lane, int group, bool active) {
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < kRmsNormMaxVectorsPerThread; ++j) {
    if (active && lane + j * group < vectors) {
#pragma unroll
      for (int e = 0; e < Vector<T>::kSize; ++e) {
        const float f = toFloat(held[j].v[e]);
        sum += f * f;
      }
    }
  }
  return sum;
}

// This lane's vectors of the row x loaded into `held`, and heldSquares of them.
template <typename T>
__device__ __forceinline__ float loadSquares(const Vector<T>* x, int vectors, int lane, int group,
                                             bool active,
                                             Vector<T> (&held)[kRmsNormMaxVectorsPerThread]) {
#pragma unroll
  for (int j = 0; j < kRmsNormMaxVectorsPerThread; ++j) {
    const int i = lane + j * group;
    if (active && i < vectors) held[j] = x[i];
  }
  return heldSquares(held, vectors, lane, group, active);
}

// `sum` added over the lanes of a group within a warp (the whole warp where the group is wider);
// every lane of it gets the total.
__device__ __forceinline__ float groupShuffleSum(float sum, int group) {
  for (int offset = min(group, 32) / 2; offset > 0; offset /= 2) {
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  }
  return sum;
}

// rsqrt(mean + eps) from a row's sum of squares: the composition's float32 steps (libtorch's CUDA
// mean multiplies by 1/n).
__device__ __forceinline__ float inverseRms(float sum_of_squares, int n, float eps) {
  return rsqrtf(sum_of_squares * (1.0f / static_cast<float>(n)) + eps);
}

// weight · (x · inverse_rms), the normalized value rounded to T first, then the product.
template <typename T>
__device__ __forceinline__ T rmsNormElement(T x, T weight, float inverse_rms) {
  const T normed = fromFloat<T>(toFloat(x) * inverse_rms);
  return fromFloat<T>(toFloat(weight) * toFloat(normed));
}

}  // namespace studio::kernels

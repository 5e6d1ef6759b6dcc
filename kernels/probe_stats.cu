// The probe's two passes: a block per (query, head, key split) of 8 warps; a warp takes one key
// at a time, its lanes split the head dimension and reduce with shuffles, so each key row is read
// once, coalesced. Accumulation in double, as the CPU reference does.

#include <cmath>

#include "kernels/element_convert.cuh"
#include "kernels/probe_stats.h"

namespace studio::kernels {

namespace {

constexpr int kWarps = 8;
constexpr int kMaxDimPerLane = 8;  // D ≤ 256

__device__ bool isTarget(const ProbeArgs& a, std::int64_t position) {
  for (int s = 0; s < a.spans; ++s) {
    if (position >= a.targets[2 * s] && position < a.targets[2 * s + 1]) return true;
  }
  return false;
}

// The block's query row and head, the keys of its split, and this lane's slice of q.
struct ProbeSlot {
  int i, h, h_kv, slot;
  int j_begin, j_end;
  std::int64_t position;
  float q[kMaxDimPerLane];
};

__device__ ProbeSlot probeSlot(const ProbeArgs& a) {
  ProbeSlot s;
  s.i = blockIdx.x / a.q_heads;
  s.h = blockIdx.x % a.q_heads;
  s.h_kv = s.h / (a.q_heads / a.kv_heads);
  s.slot = (s.i * a.q_heads + s.h) * a.total_splits + a.split_base + blockIdx.y;
  s.position = a.positions[s.i];
  // Keys past the query's position are never seen: the split covers the visible part only.
  const std::int64_t visible_end = s.position + 1 - a.key_offset;
  const int visible = static_cast<int>(visible_end < 0 ? 0 : (visible_end < a.len ? visible_end : a.len));
  const int per_split = (visible + a.splits - 1) / a.splits;
  s.j_begin = blockIdx.y * per_split;
  s.j_end = min(visible, s.j_begin + per_split);
  const int lane = threadIdx.x % 32;
  const float* q = a.q + (static_cast<std::int64_t>(s.h) * a.n + s.i) * a.dim;
  for (int t = 0; t < kMaxDimPerLane; ++t) {
    const int d = lane + 32 * t;
    s.q[t] = d < a.dim ? q[d] : 0.0f;
  }
  return s;
}

// z_j = (q·k_j) · scale for key j of the segment, the same in every lane of the warp.
template <typename K>
__device__ double keyScore(const ProbeArgs& a, const ProbeSlot& s, int j) {
  const int lane = threadIdx.x % 32;
  const K* k = static_cast<const K*>(a.k) + s.h_kv * a.head_stride + static_cast<std::int64_t>(j) * a.dim;
  float dot = 0.0f;
  for (int t = 0; t < kMaxDimPerLane; ++t) {
    const int d = lane + 32 * t;
    if (d < a.dim) dot += s.q[t] * toFloat(k[d]);
  }
  for (int offset = 16; offset > 0; offset /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, offset);
  return static_cast<double>(dot) * a.scale;
}

template <typename K>
__global__ void bestLogitsKernel(ProbeArgs a) {
  const ProbeSlot s = probeSlot(a);
  const int warp = threadIdx.x / 32;
  double best_t = -INFINITY, best_o = -INFINITY;
  std::int64_t best_j = -1;
  for (int j = s.j_begin + warp; j < s.j_end; j += kWarps) {
    const double z = keyScore<K>(a, s, j);
    const std::int64_t position = a.key_offset + j;
    if (isTarget(a, position)) {
      if (z > best_t || (z == best_t && position < best_j)) { best_t = z; best_j = position; }
    } else {
      best_o = fmax(best_o, z);
    }
  }
  __shared__ double warp_t[kWarps], warp_o[kWarps];
  __shared__ std::int64_t warp_j[kWarps];
  if (threadIdx.x % 32 == 0) { warp_t[warp] = best_t; warp_o[warp] = best_o; warp_j[warp] = best_j; }
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int w = 1; w < kWarps; ++w) {
    if (warp_t[w] > best_t || (warp_t[w] == best_t && warp_j[w] >= 0 && (best_j < 0 || warp_j[w] < best_j))) {
      best_t = warp_t[w];
      best_j = warp_j[w];
    }
    best_o = fmax(best_o, warp_o[w]);
  }
  a.best_target[s.slot] = best_t;
  a.best_index[s.slot] = best_j;
  a.best_other[s.slot] = best_o;
}

template <typename K>
__global__ void massesKernel(ProbeArgs a) {
  const ProbeSlot s = probeSlot(a);
  const int warp = threadIdx.x / 32;
  // The best target over every segment and split that pass 1 wrote.
  double best_t = -INFINITY;
  std::int64_t best_j = -1;
  const int first = (s.i * a.q_heads + s.h) * a.total_splits;
  for (int t = 0; t < a.total_splits; ++t) {
    const double z = a.best_target[first + t];
    const std::int64_t j = a.best_index[first + t];
    if (j >= 0 && (best_j < 0 || z > best_t || (z == best_t && j < best_j))) { best_t = z; best_j = j; }
  }
  const double lse = a.lse[s.h * a.n + s.i];
  double mass = 0, other = 0, rest = 0;
  std::int64_t ties[kProbeMaxDeltas] = {};
  std::int64_t targets = 0;
  for (int j = s.j_begin + warp; j < s.j_end; j += kWarps) {
    const double z = keyScore<K>(a, s, j);
    const std::int64_t position = a.key_offset + j;
    const double weight = exp(z - lse);
    if (position != best_j) rest += weight;
    if (isTarget(a, position)) {
      mass += weight;
      ++targets;
    } else {
      other += weight;
      for (int d = 0; d < a.deltas; ++d) ties[d] += z >= best_t - a.delta[d];
    }
  }
  __shared__ double warp_sums[3][kWarps];
  __shared__ std::int64_t warp_counts[kProbeMaxDeltas + 1][kWarps];
  if (threadIdx.x % 32 == 0) {
    warp_sums[0][warp] = mass;
    warp_sums[1][warp] = other;
    warp_sums[2][warp] = rest;
    for (int d = 0; d < kProbeMaxDeltas; ++d) warp_counts[d][warp] = ties[d];
    warp_counts[kProbeMaxDeltas][warp] = targets;
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int w = 1; w < kWarps; ++w) {
    mass += warp_sums[0][w];
    other += warp_sums[1][w];
    rest += warp_sums[2][w];
    for (int d = 0; d < kProbeMaxDeltas; ++d) ties[d] += warp_counts[d][w];
    targets += warp_counts[kProbeMaxDeltas][w];
  }
  a.mass[s.slot] = mass;
  a.other_mass[s.slot] = other;
  a.rest[s.slot] = rest;
  a.target_keys[s.slot] = targets;
  for (int d = 0; d < a.deltas; ++d) a.near_ties[s.slot * a.deltas + d] = ties[d];
}

template <template <typename> class Kernel>
const char* launchProbe(const ProbeArgs& a, void* stream_ptr) {
  if (a.dim > 32 * kMaxDimPerLane || a.deltas > kProbeMaxDeltas || a.kv_heads < 1 ||
      a.q_heads % a.kv_heads != 0 || a.splits < 1) {
    return "probe kernel: unsupported shape";
  }
  const dim3 grid(a.n * a.q_heads, a.splits);
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  switch (a.key_type) {
    case ElementType::Float32: Kernel<float>::launch(grid, a, stream); break;
    case ElementType::BFloat16: Kernel<__nv_bfloat16>::launch(grid, a, stream); break;
    case ElementType::Float16: Kernel<__half>::launch(grid, a, stream); break;
  }
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? "" : cudaGetErrorString(error);
}

template <typename K>
struct BestLogits {
  static void launch(dim3 grid, const ProbeArgs& a, cudaStream_t stream) {
    bestLogitsKernel<K><<<grid, 32 * kWarps, 0, stream>>>(a);
  }
};
template <typename K>
struct Masses {
  static void launch(dim3 grid, const ProbeArgs& a, cudaStream_t stream) {
    massesKernel<K><<<grid, 32 * kWarps, 0, stream>>>(a);
  }
};

}  // namespace

const char* probeBestLogits(const ProbeArgs& args, void* stream) {
  return launchProbe<BestLogits>(args, stream);
}

const char* probeMasses(const ProbeArgs& args, void* stream) {
  return launchProbe<Masses>(args, stream);
}

}  // namespace studio::kernels

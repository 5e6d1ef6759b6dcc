// y = x·Wᵀ + b for 1 to 4 rows of x: a block of 4 warps per 4 output features, a warp per weight
// row (per pair of rows for the gated kernel). Each lane reads 16-byte vectors of its rows (8
// elements), kUnroll of them issued before any is used, with the matching vectors of x (small,
// shared by every warp: cached); products summed in float32 per lane in the order of the vectors,
// then across the warp with shuffles, and rounded once to the output type. Launched with
// GemvArgs::programmatic, a kernel issues its first weight vectors before it waits for the kernel
// before it (programmatic_launch.cuh): the weights are constant; x and the outputs are not.

#include <algorithm>
#include <atomic>

#include "kernels/element_convert.cuh"
#include "kernels/gemv.h"
#include "kernels/programmatic_launch.cuh"

namespace studio::kernels {

namespace {

constexpr int kWarps = 4;
constexpr int kUnroll = 8;  // 16-byte weight vectors a lane has in flight

__host__ __device__ int blocksFor(int out) { return (out + kWarps - 1) / kWarps; }

// The pieces both kernels' warps are made of. A lane reads the vectors lane, lane + 32, … of each
// of its M weight rows, kEach of each at a time, and adds their products in that order.

// w[m][u] = vector v0 + 32·u + lane of row m (zero past the row). The weights are read once:
// streamed past the caches.
template <int M, int kEach>
__device__ void loadVectors(uint4 (&w)[M][kEach], const uint4* const (&w_rows)[M], int v0,
                            int vectors, int lane) {
#pragma unroll
  for (int u = 0; u < kEach; ++u) {
    const int v = v0 + u * 32 + lane;
#pragma unroll
    for (int m = 0; m < M; ++m) {
      w[m][u] = v < vectors ? __ldcs(w_rows[m] + v) : make_uint4(0, 0, 0, 0);
    }
  }
}

// acc[m][r] += the products of w's vectors with the matching vectors of row r of x.
template <typename T, int R, int M, int kEach>
__device__ void addProducts(float (&acc)[M][R], const uint4 (&w)[M][kEach], const uint4* x_rows,
                            int v0, int vectors, int lane) {
#pragma unroll
  for (int u = 0; u < kEach; ++u) {
    const int v = v0 + u * 32 + lane;
    if (v >= vectors) break;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const uint4 x_vector = __ldg(x_rows + static_cast<std::int64_t>(r) * vectors + v);
      const T* x_elements = reinterpret_cast<const T*>(&x_vector);
#pragma unroll
      for (int m = 0; m < M; ++m) {
        const T* w_elements = reinterpret_cast<const T*>(&w[m][u]);
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[m][r] += toFloat(w_elements[e]) * toFloat(x_elements[e]);
      }
    }
  }
}

template <int R, int M>
__device__ void clear(float (&acc)[M][R]) {
#pragma unroll
  for (int m = 0; m < M; ++m) {
#pragma unroll
    for (int r = 0; r < R; ++r) acc[m][r] = 0.0f;
  }
}

// Every lane's acc[m][r] becomes the sum over the warp.
template <int R, int M>
__device__ void warpSum(float (&acc)[M][R]) {
#pragma unroll
  for (int m = 0; m < M; ++m) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) {
        acc[m][r] += __shfl_xor_sync(0xffffffffu, acc[m][r], offset);
      }
    }
  }
}

// acc[m][r] = row m of the warp's weights · row r of x, summed over the whole warp, kUnroll / M
// vectors of each row in flight; the sum of a row does not depend on M.
template <typename T, int R, int M>
__device__ void warpDots(const uint4* const (&w_rows)[M], const uint4* x_rows, int vectors,
                         int lane, float (&acc)[M][R]) {
  constexpr int kEach = kUnroll / M;
  clear(acc);
  for (int v0 = 0; v0 < vectors; v0 += 32 * kEach) {
    uint4 w[M][kEach];
    loadVectors(w, w_rows, v0, vectors, lane);
    // x is the kernel before's output: read only once it has finished.
    if (v0 == 0) waitForPrimary();
    addProducts<T>(acc, w, x_rows, v0, vectors, lane);
  }
  warpSum(acc);
}

template <typename T>
__device__ const uint4* weightRow(const void* weight, int n, int in) {
  return reinterpret_cast<const uint4*>(static_cast<const T*>(weight) +
                                        static_cast<std::int64_t>(n) * in);
}

// The outputs' blocks follow one another: output s has blocks [first, first + blocksFor(out)).
template <typename T, int R>
__global__ void __launch_bounds__(32 * kWarps) gemvKernel(GemvArgs a) {
  releaseDependents();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Unrolled over constant indices, so that the arguments stay in the parameter space.
  const int block = static_cast<int>(blockIdx.x);
  int first = 0;
  GemvOutput o = a.outputs[0];
#pragma unroll
  for (int s = 1; s < kGemvMaxOutputs; ++s) {
    const int blocks = blocksFor(o.out);
    if (s < a.output_count && block >= first + blocks) {
      first += blocks;
      o = a.outputs[s];
    }
  }
  const int n = (block - first) * kWarps + warp;
  if (n >= o.out) return;
  const uint4* w_rows[1] = {weightRow<T>(o.weight, n, a.in)};
  float acc[1][R];
  warpDots<T, R, 1>(w_rows, static_cast<const uint4*>(a.x), a.in / 8, lane, acc);
  if (lane != 0) return;
  const float b = o.bias ? toFloat(static_cast<const T*>(o.bias)[n]) : 0.0f;
  T* y = static_cast<T*>(o.y);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    y[static_cast<std::int64_t>(r) * o.out + n] = fromFloat<T>(acc[0][r] + b);
  }
}

// libtorch's formulas in float32 (its opmath type for bf16 and f16).
__device__ float activate(float x, GemvGate gate) {
  switch (gate) {
    case GemvGate::Silu: return x / (1.0f + expf(-x));
    case GemvGate::GeluTanh: {
      constexpr float kBeta = 0.7978845608028654f;  // √(2/π)
      constexpr float kKappa = 0.044715f;
      const float inner = kBeta * (x + kKappa * (x * x * x));
      return 0.5f * x * (1.0f + tanhf(inner));
    }
    case GemvGate::Gelu: return x * 0.5f * (1.0f + erff(x * 0.7071067811865476f));  // 1/√2
  }
  return x;
}

// Rounded as the composition rounds: the gate and up products to T, the activation to T, then
// their product.
template <typename T, int R>
__global__ void __launch_bounds__(32 * kWarps) gatedGemvKernel(GatedGemvArgs a) {
  releaseDependents();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int n = static_cast<int>(blockIdx.x) * kWarps + warp;
  if (n >= a.out) return;
  const uint4* w_rows[2] = {weightRow<T>(a.gate, n, a.in), weightRow<T>(a.up, n, a.in)};
  float acc[2][R];
  warpDots<T, R, 2>(w_rows, static_cast<const uint4*>(a.x), a.in / 8, lane, acc);
  if (lane != 0) return;
  T* y = static_cast<T*>(a.y);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const T gate = fromFloat<T>(acc[0][r]), up = fromFloat<T>(acc[1][r]);
    const T activated = fromFloat<T>(activate(toFloat(gate), a.activation));
    y[static_cast<std::int64_t>(r) * a.out + n] = fromFloat<T>(toFloat(activated) * toFloat(up));
  }
}

// The streaming variant (GemvArgs::stream): a grid of as many blocks as fit on the device at once,
// each warp taking rows row, row + stride, … in turn. A lane keeps kStreamEach vectors of each of
// its M weight rows in flight while it multiplies the previous ones, across the end of a row into
// the next, so that its loads never wait for a row's reduction and store. Each lane adds its
// vectors in the same order as warpDots, so every output is bit for bit the other kernels'.
constexpr int kStreamUnroll = 4;  // vectors a lane has in flight per buffer, over its M rows

// rows(g, w) points w at row g's M weight rows; store(g, acc) writes row g's outputs (lane 0).
template <typename T, int R, int M, typename Rows, typename Store>
__device__ void streamRows(int g, int stride, int total, const uint4* x_rows, int vectors,
                           int lane, Rows rows, Store store) {
  constexpr int kEach = kStreamUnroll / M;
  const uint4* w[M];
  uint4 next[M][kEach];
  if (g < total) {
    rows(g, w);
    loadVectors(next, w, 0, vectors, lane);
  }
  waitForPrimary();  // x is the kernel before's output
  float acc[M][R];
  clear(acc);
  int v0 = 0;
  while (g < total) {
    uint4 current[M][kEach];
#pragma unroll
    for (int m = 0; m < M; ++m) {
#pragma unroll
      for (int u = 0; u < kEach; ++u) current[m][u] = next[m][u];
    }
    // The next vectors: this row's next pass, or the next row's first.
    int next_g = g, next_v0 = v0 + 32 * kEach;
    if (next_v0 >= vectors) next_g += stride, next_v0 = 0;
    if (next_g < total) {
      if (next_v0 == 0) rows(next_g, w);
      loadVectors(next, w, next_v0, vectors, lane);
    }
    addProducts<T>(acc, current, x_rows, v0, vectors, lane);
    if (next_v0 == 0) {  // the row is done
      warpSum(acc);
      if (lane == 0) store(g, acc);
      clear(acc);
    }
    g = next_g;
    v0 = next_v0;
  }
}

// Row g of the group's concatenated outputs: its output and its row n there.
__device__ void locateRow(const GemvArgs& a, int g, GemvOutput& o, int& n) {
  o = a.outputs[0];
  n = g;
#pragma unroll
  for (int s = 1; s < kGemvMaxOutputs; ++s) {
    if (s < a.output_count && n >= o.out) {
      n -= o.out;
      o = a.outputs[s];
    }
  }
}

template <typename T, int R>
__global__ void __launch_bounds__(32 * kWarps) gemvStreamKernel(GemvArgs a, int total) {
  releaseDependents();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = static_cast<int>(blockIdx.x) * kWarps + warp;
  const int stride = static_cast<int>(gridDim.x) * kWarps;
  streamRows<T, R, 1>(
      g, stride, total, static_cast<const uint4*>(a.x), a.in / 8, lane,
      [&](int row, const uint4* (&w)[1]) {
        GemvOutput o;
        int n;
        locateRow(a, row, o, n);
        w[0] = weightRow<T>(o.weight, n, a.in);
      },
      [&](int row, const float (&acc)[1][R]) {
        GemvOutput o;
        int n;
        locateRow(a, row, o, n);
        const float b = o.bias ? toFloat(static_cast<const T*>(o.bias)[n]) : 0.0f;
        T* y = static_cast<T*>(o.y);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          y[static_cast<std::int64_t>(r) * o.out + n] = fromFloat<T>(acc[0][r] + b);
        }
      });
}

template <typename T, int R>
__global__ void __launch_bounds__(32 * kWarps) gatedGemvStreamKernel(GatedGemvArgs a) {
  releaseDependents();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = static_cast<int>(blockIdx.x) * kWarps + warp;
  const int stride = static_cast<int>(gridDim.x) * kWarps;
  streamRows<T, R, 2>(
      g, stride, a.out, static_cast<const uint4*>(a.x), a.in / 8, lane,
      [&](int row, const uint4* (&w)[2]) {
        w[0] = weightRow<T>(a.gate, row, a.in);
        w[1] = weightRow<T>(a.up, row, a.in);
      },
      [&](int row, const float (&acc)[2][R]) {
        T* y = static_cast<T*>(a.y);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const T gate = fromFloat<T>(acc[0][r]), up = fromFloat<T>(acc[1][r]);
          const T activated = fromFloat<T>(activate(toFloat(gate), a.activation));
          y[static_cast<std::int64_t>(r) * a.out + row] =
              fromFloat<T>(toFloat(activated) * toFloat(up));
        }
      });
}

// Blocks of `kernel` that fit on the current device at once (resident together), at most `needed`.
// Asked of the runtime once per kernel and device (an eager decode step launches ~200 GEMVs).
template <typename Kernel>
int residentBlocks(Kernel kernel, int needed) {
  constexpr int kDevices = 64;
  static std::atomic<int> resident[kDevices] = {};  // 0: not asked yet
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kDevices) return needed;
  int blocks = resident[device].load(std::memory_order_relaxed);
  if (blocks == 0) {
    int processors = 0, per_processor = 0;
    if (cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device) !=
            cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_processor, kernel, 32 * kWarps, 0) !=
            cudaSuccess) {
      return needed;
    }
    blocks = std::max(1, processors * per_processor);
    resident[device].store(blocks, std::memory_order_relaxed);
  }
  return std::min(needed, blocks);
}

template <typename T, int R>
cudaError_t launchRows(const GemvArgs& a, cudaStream_t stream) {
  int blocks = 0, total = 0;
  for (int s = 0; s < a.output_count; ++s) {
    blocks += blocksFor(a.outputs[s].out);
    total += a.outputs[s].out;
  }
  if (a.stream) {
    const auto kernel = gemvStreamKernel<T, R>;
    return launchKernel(kernel, dim3(residentBlocks(kernel, blocksFor(total))), dim3(32 * kWarps),
                        0, stream, a.programmatic, a, total);
  }
  return launchKernel(gemvKernel<T, R>, dim3(blocks), dim3(32 * kWarps), 0, stream,
                      a.programmatic, a);
}

template <typename T, int R>
cudaError_t launchRows(const GatedGemvArgs& a, cudaStream_t stream) {
  if (a.stream) {
    const auto kernel = gatedGemvStreamKernel<T, R>;
    return launchKernel(kernel, dim3(residentBlocks(kernel, blocksFor(a.out))), dim3(32 * kWarps),
                        0, stream, a.programmatic, a);
  }
  return launchKernel(gatedGemvKernel<T, R>, dim3(blocksFor(a.out)), dim3(32 * kWarps), 0,
                      stream, a.programmatic, a);
}

template <typename T, typename Args>
const char* launch(const Args& a, cudaStream_t stream) {
  cudaError_t status = cudaSuccess;
  switch (a.rows) {
    case 1: status = launchRows<T, 1>(a, stream); break;
    case 2: status = launchRows<T, 2>(a, stream); break;
    case 3: status = launchRows<T, 3>(a, stream); break;
    default: status = launchRows<T, 4>(a, stream); break;
  }
  return status == cudaSuccess && cudaGetLastError() == cudaSuccess
             ? nullptr
             : "the linear layer's kernel did not launch";
}

template <typename Args>
const char* launchTyped(const Args& a, void* stream_ptr) {
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (a.type == ElementType::BFloat16) return launch<__nv_bfloat16>(a, stream);
  return launch<__half>(a, stream);
}

}  // namespace

bool gemvSupported(ElementType type, int rows, int in) {
  return type != ElementType::Float32 && rows >= 1 && rows <= kGemvMaxRows && in >= 8 &&
         in % 8 == 0;
}

const char* gemv(const GemvArgs& a, void* stream) {
  if (!gemvSupported(a.type, a.rows, a.in)) return "unsupported shape or type";
  if (a.output_count < 1 || a.output_count > kGemvMaxOutputs) return "1 to 3 outputs";
  for (int s = 0; s < a.output_count; ++s) {
    if (a.outputs[s].out < 1) return "an output with no features";
  }
  return launchTyped(a, stream);
}

const char* gatedGemv(const GatedGemvArgs& a, void* stream) {
  if (!gemvSupported(a.type, a.rows, a.in) || a.out < 1) return "unsupported shape or type";
  return launchTyped(a, stream);
}

}  // namespace studio::kernels

#include "kernels/ttt_linear_scan.h"

#include <cuda_runtime.h>

#include "kernels/ttt_scan_block.cuh"

namespace studio::kernels {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
using ttt_scan::kMaxDim;
constexpr int kRowsPerThread = 4;  // rows that share one read of a W or G column

// Where each array lives in the block's shared memory, in floats.
struct SharedLayout {
  int w, bias, norm_weight, norm_bias, tok, lr;  // W [f, f], b [f], ttt_norm [f] ×2, tok [n], lr [n]
  int q, k;                                      // [n, f + 1]: q and k, rows padded (no bank conflicts in q_i·k_j)
  int target, grad, z;                           // [n, f] each: v − k (later η_nj·G_j), ∂ℓ/∂Z1, the read z
  int eta, weighted;                             // [n, n] each: η_ij = tok_i·lr_j (j ≤ i), η_ij·(q_i·k_j)
  int total;
};

__host__ __device__ SharedLayout sharedLayout(int f, int n) {
  SharedLayout s{};
  int at = 0;
  auto take = [&at](int count) {
    const int start = at;
    at += count;
    return start;
  };
  s.w = take(f * f);
  s.bias = take(f);
  s.norm_weight = take(f);
  s.norm_bias = take(f);
  s.tok = take(n);
  s.lr = take(n);
  s.q = take(n * (f + 1));
  s.k = take(n * (f + 1));
  s.target = take(n * f);
  s.grad = take(n * f);
  s.z = take(n * f);
  s.eta = take(n * n);
  s.weighted = take(n * n);
  s.total = at;
  return s;
}

// One block per (sequence, head). Per mini-batch of n tokens, with W, b its start weights:
//   Z1 = K·W + b, G = ∂ℓ/∂Z1 (ℓ = ½‖LN(Z1) − (V − K)‖² per row),
//   z_i = q_i·W − Σ_{j≤i} η_ij (q_i·k_j) G_j + b − Σ_{j≤i} η_ij G_j,   out_i = q_i + LN(z_i),
//   W ← W − Σ_j η_nj k_jᵀ G_j,  b ← b − Σ_j η_nj G_j   (η_nj: the last row, tok_n·lr_j).
__global__ void __launch_bounds__(kThreads) tttLinearScanKernel(TttLinearScanArgs a) {
  extern __shared__ float shared[];
  const TttScanInputs& in = a.in;
  const int f = in.dim, n = in.mini_batch;
  const SharedLayout at = sharedLayout(f, n);
  float* W = shared + at.w;
  float* bias = shared + at.bias;
  float* norm_weight = shared + at.norm_weight;
  float* norm_bias = shared + at.norm_bias;
  float* tok = shared + at.tok;
  float* lr = shared + at.lr;
  float* Q = shared + at.q;
  float* K = shared + at.k;
  float* target = shared + at.target;
  float* G = shared + at.grad;
  float* Z = shared + at.z;
  float* eta = shared + at.eta;
  float* weighted = shared + at.weighted;

  const int sequence_head = blockIdx.x;
  const int head = sequence_head % in.heads;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  float* w_global = a.w + static_cast<std::int64_t>(sequence_head) * f * f;
  float* b_global = a.b + static_cast<std::int64_t>(sequence_head) * f;

  for (int i = tid; i < f * f; i += kThreads) W[i] = w_global[i];
  for (int c = tid; c < f; c += kThreads) bias[c] = b_global[c];
  ttt_scan::loadLayerConstants<kThreads>(in, head, norm_weight, norm_bias, tok, tid);
  __syncthreads();

  const int fq = f + 1;  // the row stride of Q and K
  const int row_groups = (n + kRowsPerThread - 1) / kRowsPerThread;
  const int column_groups = (f + kRowsPerThread - 1) / kRowsPerThread;
  const int mini_batches = in.tokens / n;
  for (int batch = 0; batch < mini_batches; ++batch) {
    const std::int64_t row0 = static_cast<std::int64_t>(sequence_head) * in.tokens +
                              static_cast<std::int64_t>(batch) * n;
    ttt_scan::loadMiniBatch<kThreads>(in, row0, Q, K, target, lr, tid);
    __syncthreads();

    // Z1 = K·W + b into G, Q·W into Z; a thread takes one column c for kRowsPerThread rows.
    for (int item = tid; item < f * row_groups; item += kThreads) {
      const int c = item % f, i0 = (item / f) * kRowsPerThread;
      float key_acc[kRowsPerThread] = {}, query_acc[kRowsPerThread] = {};
      for (int d = 0; d < f; ++d) {
        const float w = W[d * f + c];
#pragma unroll
        for (int r = 0; r < kRowsPerThread; ++r) {
          if (i0 + r < n) {
            key_acc[r] += K[(i0 + r) * fq + d] * w;
            query_acc[r] += Q[(i0 + r) * fq + d] * w;
          }
        }
      }
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        if (i0 + r < n) {
          G[(i0 + r) * f + c] = key_acc[r] + bias[c];
          Z[(i0 + r) * f + c] = query_acc[r];
        }
      }
    }
    // η_ij = tok_i·lr_j and η_ij·(q_i·k_j) below the diagonal, zero above.
    for (int item = tid; item < n * n; item += kThreads) {
      const int i = item / n, j = item % n;
      float e = 0.f, product = 0.f;
      if (j <= i) {
        e = tok[i] * lr[j];
        float dot = 0.f;
        for (int d = 0; d < f; ++d) dot += Q[i * fq + d] * K[j * fq + d];
        product = e * dot;
      }
      eta[item] = e;
      weighted[item] = product;
    }
    __syncthreads();

    for (int row = warp; row < n; row += kWarps) {
      ttt_scan::lossGradientRow(G + row * f, target + row * f, norm_weight, norm_bias, f, lane,
                                in.layer_norm, in.eps);
    }
    __syncthreads();

    // z_i, and η_ni·G_i into target (free since the gradients) for the update below.
    for (int item = tid; item < n * f; item += kThreads) {
      const int i = item / f, c = item % f;
      float through_keys = 0.f, through_bias = 0.f;
      for (int j = 0; j <= i; ++j) {
        const float g = G[j * f + c];
        through_keys += weighted[i * n + j] * g;
        through_bias += eta[i * n + j] * g;
      }
      Z[item] = Z[item] - through_keys + (bias[c] - through_bias);
      target[item] = eta[(n - 1) * n + i] * G[item];
    }
    __syncthreads();

    float* out = in.out + row0 * f;
    for (int row = warp; row < n; row += kWarps) {
      ttt_scan::outputRow(Z + row * f, Q + row * fq, norm_weight, norm_bias, out + row * f, f, lane,
                in.layer_norm, in.eps);
    }
    // W ← W − Σ_j k_jᵀ(η_nj·G_j): a thread takes one column c for kRowsPerThread rows d.
    const float* scaled = target;
    for (int item = tid; item < f * column_groups; item += kThreads) {
      const int c = item % f, d0 = (item / f) * kRowsPerThread;
      float step[kRowsPerThread] = {};
      for (int j = 0; j < n; ++j) {
        const float g = scaled[j * f + c];
#pragma unroll
        for (int r = 0; r < kRowsPerThread; ++r) {
          if (d0 + r < f) step[r] += K[j * fq + d0 + r] * g;
        }
      }
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        if (d0 + r < f) W[(d0 + r) * f + c] -= step[r];
      }
    }
    for (int c = tid; c < f; c += kThreads) {
      float step = 0.f;
      for (int j = 0; j < n; ++j) step += scaled[j * f + c];
      bias[c] -= step;
    }
    __syncthreads();
  }

  for (int i = tid; i < f * f; i += kThreads) w_global[i] = W[i];
  for (int c = tid; c < f; c += kThreads) b_global[c] = bias[c];
}

}  // namespace

std::int64_t tttLinearScanSharedBytes(int dim, int mini_batch) {
  return static_cast<std::int64_t>(sharedLayout(dim, mini_batch).total) * sizeof(float);
}

bool tttLinearScanSupported(int dim, int mini_batch) {
  return dim >= 1 && dim <= kMaxDim && mini_batch >= 1 &&
         tttScanSharedMemoryFits(tttLinearScanSharedBytes(dim, mini_batch));
}

const char* tttLinearScan(const TttLinearScanArgs& args, void* stream) {
  const TttScanInputs& in = args.in;
  if (!tttLinearScanSupported(in.dim, in.mini_batch) || !tttScanCountsValid(in)) {
    return "TTT-Linear scan: unsupported sizes";
  }
  const std::int64_t bytes = tttLinearScanSharedBytes(in.dim, in.mini_batch);
  cudaError_t error = cudaFuncSetAttribute(
      tttLinearScanKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (error != cudaSuccess) return cudaGetErrorString(error);
  tttLinearScanKernel<<<in.batch_heads, kThreads, static_cast<std::size_t>(bytes),
                        static_cast<cudaStream_t>(stream)>>>(args);
  error = cudaGetLastError();
  return error == cudaSuccess ? "" : cudaGetErrorString(error);
}

}  // namespace studio::kernels

#pragma once
// What both TTT scan kernels' blocks (ttt_linear_scan.cu, ttt_mlp_scan.cu) do alike: load the
// layer's constants and each mini-batch's tokens into shared memory, the first inner layer's
// products, the dual form's read of an element, an inner layer's update, and the row operations: a
// row of f ≤ 256 float32 values held by one warp, lane ℓ holding columns ℓ, ℓ + 32, …, through
// ttt-lm-pytorch's LayerNorm (ln_fwd: population variance, eps inside the square root), the
// gradient of its fused L2 loss (ln_fused_l2_bwd) and the layer's output q + LN(z). Rows live in
// shared memory; the warp's lanes read and write their own columns only.

#include <cstdint>

#include "kernels/ttt_scan_inputs.h"

namespace studio::kernels::ttt_scan {

constexpr int kMaxDim = 256;
constexpr int kValuesPerLane = kMaxDim / 32;
constexpr int kRowsPerThread = 4;  // rows that share one read of a weight or gradient column

// Lays arrays out one after another in a block's shared memory: take(n) returns the offset, in
// floats, of the next n floats; `count` is the floats taken so far.
struct SharedFloats {
  int count = 0;
  __host__ __device__ int operator()(int n) {
    const int start = count;
    count += n;
    return start;
  }
};

__device__ inline float warpSum(float x) {
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

// One row's mean and sqrt(population variance + eps).
struct RowStats {
  float mean, std;
};

__device__ inline RowStats rowStats(const float (&x)[kValuesPerLane], int f, int lane, float eps) {
  float sum = 0.f;
#pragma unroll
  for (int r = 0; r < kValuesPerLane; ++r) {
    if (lane + 32 * r < f) sum += x[r];
  }
  const float mean = warpSum(sum) / static_cast<float>(f);
  float squares = 0.f;
#pragma unroll
  for (int r = 0; r < kValuesPerLane; ++r) {
    if (lane + 32 * r < f) squares += (x[r] - mean) * (x[r] - mean);
  }
  const float variance = warpSum(squares) / static_cast<float>(f);
  return {mean, sqrtf(variance + eps)};
}

// z ← ∂/∂z of ½‖LN(z) − target‖² for one row (ln_fused_l2_bwd):
// (1/f)·(f·ĝ − Σĝ − x̂·Σ(ĝ·x̂))/std with x̂ = (z − μ)/std, ĝ = (w·x̂ + b − target)·w.
__device__ inline void layerNormL2GradientRow(float* z, const float* target, const float* weight,
                                              const float* bias, int f, int lane, float eps) {
  float x[kValuesPerLane];
#pragma unroll
  for (int r = 0; r < kValuesPerLane; ++r) {
    const int c = lane + 32 * r;
    x[r] = c < f ? z[c] : 0.f;
  }
  const RowStats stats = rowStats(x, f, lane, eps);
  float g[kValuesPerLane];
  float g_sum = 0.f, gx_sum = 0.f;
#pragma unroll
  for (int r = 0; r < kValuesPerLane; ++r) {
    const int c = lane + 32 * r;
    if (c >= f) continue;
    x[r] = (x[r] - stats.mean) / stats.std;
    g[r] = (weight[c] * x[r] + bias[c] - target[c]) * weight[c];
    g_sum += g[r];
    gx_sum += g[r] * x[r];
  }
  g_sum = warpSum(g_sum);
  gx_sum = warpSum(gx_sum);
  const float count = static_cast<float>(f);
#pragma unroll
  for (int r = 0; r < kValuesPerLane; ++r) {
    const int c = lane + 32 * r;
    if (c < f) z[c] = (1.f / count) * (count * g[r] - g_sum - x[r] * gx_sum) / stats.std;
  }
}

// z ← ∂/∂z of the layer's inner loss for one row: the LayerNorm's fused L2 gradient, or z − target
// for the plain loss ½‖z − target‖².
__device__ inline void lossGradientRow(float* z, const float* target, const float* weight,
                                       const float* bias, int f, int lane, bool layer_norm,
                                       float eps) {
  if (layer_norm) {
    layerNormL2GradientRow(z, target, weight, bias, f, lane, eps);
  } else {
    for (int c = lane; c < f; c += 32) z[c] -= target[c];
  }
}

// out ← q + LN(z) for one row (or q + z without the LayerNorm).
__device__ inline void outputRow(const float* z, const float* q, const float* weight,
                                 const float* bias, float* out, int f, int lane, bool layer_norm,
                                 float eps) {
  float x[kValuesPerLane];
#pragma unroll
  for (int r = 0; r < kValuesPerLane; ++r) {
    const int c = lane + 32 * r;
    x[r] = c < f ? z[c] : 0.f;
  }
  const RowStats stats = layer_norm ? rowStats(x, f, lane, eps) : RowStats{0.f, 1.f};
#pragma unroll
  for (int r = 0; r < kValuesPerLane; ++r) {
    const int c = lane + 32 * r;
    if (c >= f) continue;
    out[c] = q[c] + (layer_norm ? weight[c] * ((x[r] - stats.mean) / stats.std) + bias[c] : x[r]);
  }
}

// ttt_norm's weight and bias of the block's head (1 and 0 without the LayerNorm) [f] and tok [n],
// once per block; a block of kThreads threads.
template <int kThreads>
__device__ inline void loadLayerConstants(const TttScanInputs& in, int head, float* norm_weight,
                                          float* norm_bias, float* tok, int tid) {
  const int f = in.dim;
  for (int c = tid; c < f; c += kThreads) {
    norm_weight[c] = in.layer_norm ? in.norm_weight[head * f + c] : 1.f;
    norm_bias[c] = in.layer_norm ? in.norm_bias[head * f + c] : 0.f;
  }
  for (int i = tid; i < in.mini_batch; i += kThreads) tok[i] = in.token_factor[i];
}

// The mini-batch of n tokens from global row row0: Q and K [n, f + 1] (rows padded),
// target = v − k [n, f], lr [n].
template <int kThreads>
__device__ inline void loadMiniBatch(const TttScanInputs& in, std::int64_t row0, float* Q, float* K,
                                     float* target, float* lr, int tid) {
  const int f = in.dim, n = in.mini_batch, fq = f + 1;
  const float* q_global = in.q + row0 * f;
  const float* k_global = in.k + row0 * f;
  const float* v_global = in.v + row0 * f;
  for (int i = tid; i < n * f; i += kThreads) {
    const int row = i / f, c = i % f;
    const float key = k_global[i];
    Q[row * fq + c] = q_global[i];
    K[row * fq + c] = key;
    target[i] = v_global[i] - key;
  }
  for (int i = tid; i < n; i += kThreads) lr[i] = in.lr[row0 + i];
}

// Z1 = K·W + b into keys_out and Q·W into queries_out (rows keys_ld and queries_ld apart) for the
// mini-batch's n rows: W [f, cols]; a thread takes one column c for kRowsPerThread rows of both,
// sharing each read of W.
template <int kThreads>
__device__ inline void firstLayerProducts(const float* Q, const float* K, const float* W,
                                          const float* bias, int f, int cols, int n,
                                          float* keys_out, int keys_ld, float* queries_out,
                                          int queries_ld, int tid) {
  const int fq = f + 1, row_groups = (n + kRowsPerThread - 1) / kRowsPerThread;
  for (int item = tid; item < cols * row_groups; item += kThreads) {
    const int c = item % cols, i0 = (item / cols) * kRowsPerThread;
    float key_acc[kRowsPerThread] = {}, query_acc[kRowsPerThread] = {};
    for (int d = 0; d < f; ++d) {
      const float w = W[d * cols + c];
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
        keys_out[(i0 + r) * keys_ld + c] = key_acc[r] + bias[c];
        queries_out[(i0 + r) * queries_ld + c] = query_acc[r];
      }
    }
  }
}

// η_ij = tok_i·lr_j and η_ij·(q_i·k_j) below the diagonal, zero above: eta and weighted [n, n].
template <int kThreads>
__device__ inline void etaAndWeighted(float* eta, float* weighted, const float* tok,
                                      const float* lr, const float* Q, const float* K, int f,
                                      int n, int tid) {
  const int fq = f + 1;
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
}

// The dual form's read of one element of an inner layer at a mini-batch's start
// (ttt_inner_loop.cpp's dualRead): x_i·W − Σ_{j≤i} η_ij (x_i·x'_j) G_jc + (b_c − Σ_{j≤i} η_ij G_jc),
// given x_i·W and the weighted products η_ij (x_i·x'_j) of the layer's inputs; G rows ldg apart.
__device__ inline float dualRead(float xw, const float* weighted, const float* eta, const float* G,
                                 int ldg, int i, int c, int n, float bias) {
  float through_keys = 0.f, through_bias = 0.f;
  for (int j = 0; j <= i; ++j) {
    const float g = G[j * ldg + c];
    through_keys += weighted[i * n + j] * g;
    through_bias += eta[i * n + j] * g;
  }
  return xw - through_keys + (bias - through_bias);
}

// The mini-batch's update of one inner layer: W[d, c] −= Σ_j X[j, d]·(η_nj·G[j, c]) for d < rows,
// c < cols, and b[c] −= Σ_j η_nj·G[j, c] (η_nj: the last row of η); a thread takes one column c
// for kRowsPerThread rows d.
template <int kThreads>
__device__ inline void subtractUpdate(float* W, int ldw, float* b, int rows, int cols,
                                      const float* X, int ldx, const float* G, int ldg,
                                      const float* eta_last, int n, int tid) {
  const int groups = (rows + kRowsPerThread - 1) / kRowsPerThread;
  for (int item = tid; item < cols * groups; item += kThreads) {
    const int c = item % cols, d0 = (item / cols) * kRowsPerThread;
    float step[kRowsPerThread] = {};
    for (int j = 0; j < n; ++j) {
      const float g = eta_last[j] * G[j * ldg + c];
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        if (d0 + r < rows) step[r] += X[j * ldx + d0 + r] * g;
      }
    }
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r) {
      if (d0 + r < rows) W[(d0 + r) * ldw + c] -= step[r];
    }
  }
  for (int c = tid; c < cols; c += kThreads) {
    float step = 0.f;
    // The products rounded before the sum, as the loop above rounds them (no fused multiply-add).
    for (int j = 0; j < n; ++j) step += __fmul_rn(eta_last[j], G[j * ldg + c]);
    b[c] -= step;
  }
}

}  // namespace studio::kernels::ttt_scan

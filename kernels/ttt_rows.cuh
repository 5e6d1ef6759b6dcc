#pragma once
// The row operations both TTT scan kernels (ttt_linear_scan.cu, ttt_mlp_scan.cu) share: a row of
// f ≤ 256 float32 values held by one warp, lane ℓ holding columns ℓ, ℓ + 32, …, through
// ttt-lm-pytorch's LayerNorm (ln_fwd: population variance, eps inside the square root), the
// gradient of its fused L2 loss (ln_fused_l2_bwd) and the layer's output q + LN(z). Rows live in
// shared memory; the warp's lanes read and write their own columns only.

namespace studio::kernels::ttt_rows {

constexpr int kMaxDim = 256;
constexpr int kValuesPerLane = kMaxDim / 32;

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

}  // namespace studio::kernels::ttt_rows

#include "kernels/ttt_mlp_scan.h"

#include <cuda_runtime.h>

#include "kernels/large_shared_launch.cuh"
#include "kernels/ttt_scan_block.cuh"

namespace studio::kernels {

namespace {

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
using ttt_scan::kRowsPerThread;

// Where each array lives in the block's shared memory, in floats. q, k and W2 rows are f + 1
// apart, X2 and the queries' hidden rows e + 1 apart: odd strides, so that a warp reading one
// column across consecutive rows (x_i·x_j, G2·W2ᵀ) hits 32 different banks.
struct SharedLayout {
  int w1, b1, w2, b2;                            // W1 [f, e], b1 [e], W2 [e, f + 1], b2 [f]
  int norm_weight, norm_bias, tok, lr;           // ttt_norm [f] ×2, tok [n], lr [n]
  int q, k;                                      // [n, f + 1]
  int target;                                    // [n, f]: v − k, then the queries' Z̄2
  int x2;                                        // [n, e + 1]: X2 = gelu(Z1), the keys' hidden rows
  int grad1, grad2;                              // [n, e]: Z1, then G1 = ∂ℓ/∂Z1; [n, f]: Z2, then G2
  int hidden_q;                                  // [n, e + 1]: Q·W1, then Z̄1, then X̄2 = gelu(Z̄1)
  int eta, weighted;                             // [n, n]: η_ij = tok_i·lr_j (j ≤ i); η_ij·(x_i·x_j)
  int total;
};

__host__ __device__ SharedLayout sharedLayout(int f, int e, int n) {
  SharedLayout s{};
  ttt_scan::SharedFloats take;
  s.w1 = take(f * e);
  s.b1 = take(e);
  s.w2 = take(e * (f + 1));
  s.b2 = take(f);
  s.norm_weight = take(f);
  s.norm_bias = take(f);
  s.tok = take(n);
  s.lr = take(n);
  s.q = take(n * (f + 1));
  s.k = take(n * (f + 1));
  s.target = take(n * f);
  s.x2 = take(n * (e + 1));
  s.grad1 = take(n * e);
  s.grad2 = take(n * f);
  s.hidden_q = take(n * (e + 1));
  s.eta = take(n * n);
  s.weighted = take(n * n);
  s.total = take.count;
  return s;
}

// gelu_tanh(x) in the order of libtorch's CUDA kernel: ½·x·(1 + tanh(β·(x + κ·x³))).
__device__ inline float geluTanh(float x) {
  constexpr float kBeta = 0.7978845608028654f;  // √(2/π)
  constexpr float kKappa = 0.044715f;
  return 0.5f * x * (1.f + tanhf(kBeta * (x + kKappa * (x * x * x))));
}

// Its derivative as ttt-lm-pytorch's gelu_bwd writes it (ttt_inner_loop.cpp's
// geluTanhDerivative), with t = tanh(0.79788456·x·(1 + 0.044715·x·x)):
// ½·x·((1 − t²)·(0.79788456 + 0.1070322243·x·x)) + ½·(1 + t).
__device__ inline float geluTanhDerivative(float x) {
  const float t = tanhf(0.79788456f * x * (1.f + 0.044715f * x * x));
  return 0.5f * x * ((1.f - t * t) * (0.79788456f + 0.1070322243f * x * x)) + 0.5f * (1.f + t);
}

// One column c of A·M for the rows i0 … i0 + kRowsPerThread − 1 below n, sharing each read of M:
// acc[r] = Σ_{d < inner} A[(i0 + r)·lda + d] · M[d·m_row + c·m_column] (M transposed when
// m_row = 1).
__device__ inline void columnProduct(const float* A, int lda, const float* M, int m_row,
                                     int m_column, int c, int i0, int n, int inner,
                                     float (&acc)[kRowsPerThread]) {
#pragma unroll
  for (int r = 0; r < kRowsPerThread; ++r) acc[r] = 0.f;
  for (int d = 0; d < inner; ++d) {
    const float m = M[d * m_row + c * m_column];
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r) {
      if (i0 + r < n) acc[r] += A[(i0 + r) * lda + d] * m;
    }
  }
}

// epilogue(i, c, Σ_d A[i·lda + d]·M[d·m_row + c·m_column]) for every row i < n and column
// c < columns, the block's threads each taking kRowsPerThread rows of one column (columnProduct).
template <typename Epilogue>
__device__ inline void forEachColumnProduct(const float* A, int lda, const float* M, int m_row,
                                            int m_column, int columns, int n, int inner, int tid,
                                            Epilogue epilogue) {
  const int row_groups = (n + kRowsPerThread - 1) / kRowsPerThread;
  for (int item = tid; item < columns * row_groups; item += kThreads) {
    const int c = item % columns, i0 = (item / columns) * kRowsPerThread;
    float acc[kRowsPerThread];
    columnProduct(A, lda, M, m_row, m_column, c, i0, n, inner, acc);
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r) {
      if (i0 + r < n) epilogue(i0 + r, c, acc[r]);
    }
  }
}

// weighted_ij = η_ij·(x_i·y_j) for j ≤ i, zero above; x, y [n, inner] rows ld apart.
__device__ inline void weightedProducts(float* weighted, const float* eta, const float* x,
                                        const float* y, int ld, int inner, int n, int tid) {
  for (int item = tid; item < n * n; item += kThreads) {
    const int i = item / n, j = item % n;
    float product = 0.f;
    if (j <= i) {
      float dot = 0.f;
      for (int d = 0; d < inner; ++d) dot += x[i * ld + d] * y[j * ld + d];
      product = eta[item] * dot;
    }
    weighted[item] = product;
  }
}

// One block per (sequence, head). Per mini-batch of n tokens, with W1, b1, W2, b2 its start
// weights:
//   Z1 = K·W1 + b1, X2 = gelu(Z1), Z2 = X2·W2 + b2,
//   G2 = ∂ℓ/∂Z2 (ℓ = ½‖LN(Z2) − (V − K)‖² per row), G1 = (G2·W2ᵀ) ⊙ gelu'(Z1);
//   the queries read both layers through the dual form (dualRead), layer 2 from X̄2 = gelu(Z̄1):
//   out_i = q_i + LN(Z̄2_i);
//   W1 ← W1 − Σ_j η_nj k_jᵀ G1_j, b1 ← b1 − Σ_j η_nj G1_j, and W2, b2 likewise from X2 and G2.
__global__ void __launch_bounds__(kThreads) tttMlpScanKernel(TttMlpScanArgs a) {
  extern __shared__ float shared[];
  const TttScanInputs& in = a.in;
  const int f = in.dim, e = a.hidden, n = in.mini_batch;
  const int fq = f + 1, eq = e + 1;  // the padded row strides
  const SharedLayout at = sharedLayout(f, e, n);
  float* W1 = shared + at.w1;
  float* b1 = shared + at.b1;
  float* W2 = shared + at.w2;
  float* b2 = shared + at.b2;
  float* norm_weight = shared + at.norm_weight;
  float* norm_bias = shared + at.norm_bias;
  float* tok = shared + at.tok;
  float* lr = shared + at.lr;
  float* Q = shared + at.q;
  float* K = shared + at.k;
  float* target = shared + at.target;
  float* X2 = shared + at.x2;
  float* G1 = shared + at.grad1;
  float* G2 = shared + at.grad2;
  float* hidden_q = shared + at.hidden_q;
  float* eta = shared + at.eta;
  float* weighted = shared + at.weighted;

  const int sequence_head = blockIdx.x;
  const int head = sequence_head % in.heads;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  float* w1_global = a.w1 + static_cast<std::int64_t>(sequence_head) * f * e;
  float* b1_global = a.b1 + static_cast<std::int64_t>(sequence_head) * e;
  float* w2_global = a.w2 + static_cast<std::int64_t>(sequence_head) * e * f;
  float* b2_global = a.b2 + static_cast<std::int64_t>(sequence_head) * f;

  for (int i = tid; i < f * e; i += kThreads) W1[i] = w1_global[i];
  for (int i = tid; i < e * f; i += kThreads) W2[(i / f) * fq + i % f] = w2_global[i];
  for (int c = tid; c < e; c += kThreads) b1[c] = b1_global[c];
  for (int c = tid; c < f; c += kThreads) b2[c] = b2_global[c];
  ttt_scan::loadLayerConstants<kThreads>(in, head, norm_weight, norm_bias, tok, tid);
  __syncthreads();

  const int mini_batches = in.tokens / n;
  for (int batch = 0; batch < mini_batches; ++batch) {
    const std::int64_t row0 = static_cast<std::int64_t>(sequence_head) * in.tokens +
                              static_cast<std::int64_t>(batch) * n;
    ttt_scan::loadMiniBatch<kThreads>(in, row0, Q, K, target, lr, tid);
    __syncthreads();

    // Z1 = K·W1 + b1 into G1, Q·W1 into hidden_q; η and layer 1's weighted products q_i·k_j.
    ttt_scan::firstLayerProducts<kThreads>(Q, K, W1, b1, f, e, n, G1, e, hidden_q, eq, tid);
    ttt_scan::etaAndWeighted<kThreads>(eta, weighted, tok, lr, Q, K, f, n, tid);
    __syncthreads();
    for (int item = tid; item < n * e; item += kThreads) {
      const int i = item / e, c = item % e;
      X2[i * eq + c] = geluTanh(G1[item]);
    }
    __syncthreads();

    // Z2 = X2·W2 + b2 into G2, then G2 = ∂ℓ/∂Z2 row by row.
    forEachColumnProduct(X2, eq, W2, fq, 1, f, n, e, tid,
                         [&](int i, int c, float z2) { G2[i * f + c] = z2 + b2[c]; });
    __syncthreads();
    for (int row = warp; row < n; row += kWarps) {
      ttt_scan::lossGradientRow(G2 + row * f, target + row * f, norm_weight, norm_bias, f, lane,
                                in.layer_norm, in.eps);
    }
    __syncthreads();

    // G1 = (G2·W2ᵀ) ⊙ gelu'(Z1), each element in place over its own Z1.
    forEachColumnProduct(G2, f, W2, 1, fq, e, n, f, tid, [&](int i, int c, float back) {
      float* g = G1 + i * e + c;
      *g = back * geluTanhDerivative(*g);
    });
    __syncthreads();

    // The queries through layer 1, then X̄2 = gelu(Z̄1), each element in place.
    for (int item = tid; item < n * e; item += kThreads) {
      const int i = item / e, c = item % e;
      float* x = hidden_q + i * eq + c;
      *x = geluTanh(ttt_scan::dualRead(*x, weighted, eta, G1, e, i, c, n, b1[c]));
    }
    __syncthreads();
    weightedProducts(weighted, eta, hidden_q, X2, eq, e, n, tid);
    __syncthreads();

    // The queries through layer 2 into target (free since G2): Z̄2 = X̄2·W2 − … + b̄2.
    float* z2 = target;
    forEachColumnProduct(hidden_q, eq, W2, fq, 1, f, n, e, tid, [&](int i, int c, float product) {
      z2[i * f + c] = ttt_scan::dualRead(product, weighted, eta, G2, f, i, c, n, b2[c]);
    });
    __syncthreads();

    float* out = in.out + row0 * f;
    for (int row = warp; row < n; row += kWarps) {
      ttt_scan::outputRow(z2 + row * f, Q + row * fq, norm_weight, norm_bias, out + row * f, f,
                          lane, in.layer_norm, in.eps);
    }
    const float* eta_last = eta + (n - 1) * n;
    ttt_scan::subtractUpdate<kThreads>(W1, e, b1, f, e, K, fq, G1, e, eta_last, n, tid);
    ttt_scan::subtractUpdate<kThreads>(W2, fq, b2, e, f, X2, eq, G2, f, eta_last, n, tid);
    __syncthreads();
  }

  for (int i = tid; i < f * e; i += kThreads) w1_global[i] = W1[i];
  for (int i = tid; i < e * f; i += kThreads) w2_global[i] = W2[(i / f) * fq + i % f];
  for (int c = tid; c < e; c += kThreads) b1_global[c] = b1[c];
  for (int c = tid; c < f; c += kThreads) b2_global[c] = b2[c];
}

}  // namespace

std::int64_t tttMlpScanSharedBytes(int dim, int hidden, int mini_batch) {
  return static_cast<std::int64_t>(sharedLayout(dim, hidden, mini_batch).total) * sizeof(float);
}

bool tttMlpScanSupported(int dim, int hidden, int mini_batch) {
  if (dim < 1 || dim > ttt_scan::kMaxDim || hidden < 1 || mini_batch < 1) return false;
  // The layout's offsets are ints: refuse sizes whose floats would not count in one.
  if (static_cast<std::int64_t>(dim + 1) * hidden * 2 > (std::int64_t{1} << 30)) return false;
  return tttScanSharedMemoryFits(tttMlpScanSharedBytes(dim, hidden, mini_batch));
}

const char* tttMlpScan(const TttMlpScanArgs& args, void* stream) {
  const TttScanInputs& in = args.in;
  if (!tttMlpScanSupported(in.dim, args.hidden, in.mini_batch) || !tttScanCountsValid(in)) {
    return "TTT-MLP scan: unsupported sizes";
  }
  const std::int64_t bytes = tttMlpScanSharedBytes(in.dim, args.hidden, in.mini_batch);
  return launchWithSharedBytes(tttMlpScanKernel, in.batch_heads, kThreads,
                               static_cast<std::size_t>(bytes), static_cast<cudaStream_t>(stream),
                               args);
}

}  // namespace studio::kernels

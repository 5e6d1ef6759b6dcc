#include "kernels/ttt_linear_scan.h"

#include <cuda_runtime.h>

#include "kernels/large_shared_launch.cuh"
#include "kernels/ttt_scan_block.cuh"

namespace studio::kernels {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
using ttt_scan::kMaxDim;

// Where each array lives in the block's shared memory, in floats.
struct SharedLayout {
  int w, bias, norm_weight, norm_bias, tok, lr;  // W [f, f], b [f], ttt_norm [f] ×2, tok [n], lr [n]
  int q, k;                                      // [n, f + 1]: q and k, rows padded (no bank conflicts in q_i·k_j)
  int target, grad, z;                           // [n, f] each: v − k, ∂ℓ/∂Z1, the read z
  int eta, weighted;                             // [n, n] each: η_ij = tok_i·lr_j (j ≤ i), η_ij·(q_i·k_j)
  int total;
};

__host__ __device__ SharedLayout sharedLayout(int f, int n) {
  SharedLayout s{};
  ttt_scan::SharedFloats take;
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
  s.total = take.count;
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
  const int mini_batches = in.tokens / n;
  for (int batch = 0; batch < mini_batches; ++batch) {
    const std::int64_t row0 = static_cast<std::int64_t>(sequence_head) * in.tokens +
                              static_cast<std::int64_t>(batch) * n;
    ttt_scan::loadMiniBatch<kThreads>(in, row0, Q, K, target, lr, tid);
    __syncthreads();

    // Z1 = K·W + b into G, Q·W into Z; η and the weighted products q_i·k_j.
    ttt_scan::firstLayerProducts<kThreads>(Q, K, W, bias, f, f, n, G, f, Z, f, tid);
    ttt_scan::etaAndWeighted<kThreads>(eta, weighted, tok, lr, Q, K, f, n, tid);
    __syncthreads();

    for (int row = warp; row < n; row += kWarps) {
      ttt_scan::lossGradientRow(G + row * f, target + row * f, norm_weight, norm_bias, f, lane,
                                in.layer_norm, in.eps);
    }
    __syncthreads();

    // z_i through the dual form.
    for (int item = tid; item < n * f; item += kThreads) {
      const int i = item / f, c = item % f;
      Z[item] = ttt_scan::dualRead(Z[item], weighted, eta, G, f, i, c, n, bias[c]);
    }
    __syncthreads();

    float* out = in.out + row0 * f;
    for (int row = warp; row < n; row += kWarps) {
      ttt_scan::outputRow(Z + row * f, Q + row * fq, norm_weight, norm_bias, out + row * f, f, lane,
                in.layer_norm, in.eps);
    }
    // W ← W − Σ_j η_nj k_jᵀ G_j, b ← b − Σ_j η_nj G_j.
    ttt_scan::subtractUpdate<kThreads>(W, f, bias, f, f, K, fq, G, f, eta + (n - 1) * n, n, tid);
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
  return launchWithSharedBytes(tttLinearScanKernel, in.batch_heads, kThreads,
                               static_cast<std::size_t>(bytes), static_cast<cudaStream_t>(stream),
                               args);
}

}  // namespace studio::kernels

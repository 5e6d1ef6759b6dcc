// dQ-only backward of span attention over a frozen cache, on the tensor cores (WMMA, bf16 in, fp32
// accumulate). One block per (query tile of 16, batch × KV head, key split); its warps are the
// query heads that share the KV head (GQA), so each key/value block is read from memory once per
// group. Per key block of 32: S = Q·Kᵀ and dP = dO·Vᵀ on the tensor cores, then in fp32
// P = exp(S·scale − lse) under the causal-by-position mask and dS = P ∘ (dP − δ), then
// dQ += dS·K. Splits over the keys write separate partial sums (no atomics): the caller adds them.

#include <cuda_bf16.h>
#include <mma.h>

#include "kernels/span_attention_backward.h"

namespace studio::kernels {

namespace {

using namespace nvcuda;
using bf16 = __nv_bfloat16;

constexpr int kTile = 16;       // queries per warp tile (WMMA's M)
constexpr int kKeyBlock = 32;   // keys per shared-memory block

constexpr std::size_t alignUp(std::size_t bytes) { return (bytes + 127) / 128 * 128; }

template <int D>
struct SpanLayout {
  static constexpr std::size_t kv_block = alignUp(sizeof(bf16) * kKeyBlock * D);
  static constexpr std::size_t scores = alignUp(sizeof(float) * kTile * kKeyBlock);
  static constexpr std::size_t d_scores = alignUp(sizeof(bf16) * kTile * kKeyBlock);
  static constexpr std::size_t per_warp = 2 * scores + d_scores;
  static std::size_t bytes(int groups) { return 2 * kv_block + per_warp * groups; }
};

// Copies keys [j0, j0 + kKeyBlock) of one head into shared memory, zeros past `keys`.
template <int D>
__device__ void loadKeyBlock(bf16* dst, const bf16* head, int j0, int keys) {
  constexpr int vectors_per_row = D * sizeof(bf16) / sizeof(uint4);
  for (int i = threadIdx.x; i < kKeyBlock * vectors_per_row; i += blockDim.x) {
    const int row = i / vectors_per_row, col = i % vectors_per_row;
    const int j = j0 + row;
    uint4 value = make_uint4(0, 0, 0, 0);
    if (j < keys) value = reinterpret_cast<const uint4*>(head + static_cast<std::int64_t>(j) * D)[col];
    reinterpret_cast<uint4*>(dst + row * D)[col] = value;
  }
}

template <int D>
__global__ void spanBackwardKernel(SpanBackwardArgs a) {
  constexpr int kSteps = D / 16;
  extern __shared__ __align__(128) unsigned char smem[];
  using Layout = SpanLayout<D>;
  bf16* k_block = reinterpret_cast<bf16*>(smem);
  bf16* v_block = reinterpret_cast<bf16*>(smem + Layout::kv_block);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned char* mine = smem + 2 * Layout::kv_block + Layout::per_warp * warp;
  float* scores = reinterpret_cast<float*>(mine);                       // [16, 32]
  float* d_probs = reinterpret_cast<float*>(mine + Layout::scores);     // [16, 32]
  bf16* d_scores = reinterpret_cast<bf16*>(mine + 2 * Layout::scores);  // [16, 32]

  const int tile = blockIdx.x;
  const int b = blockIdx.y / a.kv_heads, h_kv = blockIdx.y % a.kv_heads;
  const int groups = a.q_heads / a.kv_heads;
  const int h_q = h_kv * groups + warp;
  const std::int64_t row0 = (static_cast<std::int64_t>(b) * a.q_heads + h_q) * a.n_pad + tile * kTile;

  // The keys any query of the tile sees, and this split's share of their blocks.
  std::int64_t last = -1;
  for (int r = 0; r < kTile; ++r) last = max(last, a.positions[tile * kTile + r]);
  const int visible = static_cast<int>(last + 1 < a.keys ? last + 1 : a.keys);
  const int blocks = (visible + kKeyBlock - 1) / kKeyBlock;
  const int per_split = (blocks + a.splits - 1) / a.splits;
  const int first_block = blockIdx.z * per_split;
  const int end_block = min(blocks, first_block + per_split);

  // This lane's row for the elementwise step: row lane/2, columns (lane%2)·16 .. +16.
  const int r = lane / 2, c0 = (lane % 2) * 16;
  const float row_lse = a.lse[row0 + r];
  const float row_delta = a.delta[row0 + r];
  const std::int64_t row_pos = a.positions[tile * kTile + r];

  const bf16* q = static_cast<const bf16*>(a.q) + row0 * D;
  const bf16* d_out = static_cast<const bf16*>(a.d_out) + row0 * D;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> q_frag[kSteps], d_out_frag[kSteps];
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> d_q[kSteps];
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    wmma::load_matrix_sync(q_frag[s], q + s * 16, D);
    wmma::load_matrix_sync(d_out_frag[s], d_out + s * 16, D);
    wmma::fill_fragment(d_q[s], 0.0f);
  }
  const std::int64_t head_offset = static_cast<std::int64_t>(b) * a.batch_stride + h_kv * a.head_stride;
  const bf16* k_head = static_cast<const bf16*>(a.k) + head_offset;
  const bf16* v_head = static_cast<const bf16*>(a.v) + head_offset;

  for (int block = first_block; block < end_block; ++block) {
    const int j0 = block * kKeyBlock;
    __syncthreads();  // the previous block's keys are no longer read
    loadKeyBlock<D>(k_block, k_head, j0, a.keys);
    loadKeyBlock<D>(v_block, v_head, j0, a.keys);
    __syncthreads();

    // S = Q·Kᵀ and dP = dO·Vᵀ: [16, 32] each, two 16-key halves.
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> s_acc, dp_acc;
      wmma::fill_fragment(s_acc, 0.0f);
      wmma::fill_fragment(dp_acc, 0.0f);
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> kt, vt;
        wmma::load_matrix_sync(kt, k_block + half * 16 * D + s * 16, D);
        wmma::load_matrix_sync(vt, v_block + half * 16 * D + s * 16, D);
        wmma::mma_sync(s_acc, q_frag[s], kt, s_acc);
        wmma::mma_sync(dp_acc, d_out_frag[s], vt, dp_acc);
      }
      wmma::store_matrix_sync(scores + half * 16, s_acc, kKeyBlock, wmma::mem_row_major);
      wmma::store_matrix_sync(d_probs + half * 16, dp_acc, kKeyBlock, wmma::mem_row_major);
    }
    __syncwarp();
    // dS = P ∘ (dP − δ), P = exp(S·scale − lse) where the key is visible to the query.
#pragma unroll
    for (int c = c0; c < c0 + 16; ++c) {
      const int j = j0 + c;
      const int i = r * kKeyBlock + c;
      float d_score = 0.0f;
      if (j <= row_pos && j < a.keys) {
        const float p = __expf(scores[i] * a.scale - row_lse);
        d_score = p * (d_probs[i] - row_delta);
      }
      d_scores[i] = __float2bfloat16(d_score);
    }
    __syncwarp();
    // dQ += dS·K: [16, 32] · [32, D].
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> ds;
      wmma::load_matrix_sync(ds, d_scores + half * 16, kKeyBlock);
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> kb;
        wmma::load_matrix_sync(kb, k_block + half * 16 * D + s * 16, D);
        wmma::mma_sync(d_q[s], ds, kb, d_q[s]);
      }
    }
  }

  const std::int64_t out_row =
      ((static_cast<std::int64_t>(blockIdx.z) * a.batch + b) * a.q_heads + h_q) * a.n_pad + tile * kTile;
  float* out = a.d_q_partial + out_row * D;
#pragma unroll
  for (int s = 0; s < kSteps; ++s) wmma::store_matrix_sync(out + s * 16, d_q[s], D, wmma::mem_row_major);
}

template <int D>
const char* launch(const SpanBackwardArgs& a, cudaStream_t stream) {
  const int groups = a.q_heads / a.kv_heads;
  const std::size_t bytes = SpanLayout<D>::bytes(groups);
  cudaError_t error = cudaFuncSetAttribute(spanBackwardKernel<D>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes));
  if (error != cudaSuccess) return cudaGetErrorString(error);
  const dim3 grid(a.n_pad / kTile, a.batch * a.kv_heads, a.splits);
  spanBackwardKernel<D><<<grid, 32 * groups, bytes, stream>>>(a);
  error = cudaGetLastError();
  return error == cudaSuccess ? "" : cudaGetErrorString(error);
}

}  // namespace

bool spanBackwardSupported(int dim, int groups) {
  return (dim == 32 || dim == 64 || dim == 128 || dim == 256) && groups >= 1 && groups <= 8;
}

const char* spanAttentionBackwardDq(const SpanBackwardArgs& a, void* stream_ptr) {
  if (a.kv_heads < 1 || a.q_heads % a.kv_heads != 0 || a.n_pad % kTile != 0 || a.splits < 1 ||
      !spanBackwardSupported(a.dim, a.q_heads / a.kv_heads)) {
    return "span attention backward: unsupported shape";
  }
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  switch (a.dim) {
    case 32: return launch<32>(a, stream);
    case 64: return launch<64>(a, stream);
    case 128: return launch<128>(a, stream);
    default: return launch<256>(a, stream);
  }
}

}  // namespace studio::kernels

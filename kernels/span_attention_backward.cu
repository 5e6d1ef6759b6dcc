// dQ-only backward of span attention over a frozen cache, on the tensor cores (WMMA, bf16 in, fp32
// accumulate). One block per (up to 8 query tiles of 16, batch × KV head, key split); each warp owns
// one tile, a (query head of the KV head's group, 16 queries) pair, so every key/value block loaded
// into shared memory serves up to 128 query rows. The key/value blocks stream through two shared
// stages with cp.async, the next one loading while the current one is used. Per key block, each warp
// computes S = Q·Kᵀ and dP = dO·Vᵀ on the tensor cores, then in fp32 P = exp(S·scale − lse) under
// the causal-by-position mask and dS = P ∘ (dP − δ), then dQ += dS·K; δ = Σ_d dO·O of each row is
// taken at the start. Splits over the keys write separate partial sums (no atomics), which
// spanDqReduce adds up in one pass.

#include <cuda_bf16.h>
#include <mma.h>

#include <algorithm>
#include <type_traits>

#include "kernels/async_copy.cuh"
#include "kernels/large_shared_launch.cuh"
#include "kernels/span_attention_backward.h"

namespace studio::kernels {

namespace {

using namespace nvcuda;
using bf16 = __nv_bfloat16;

constexpr int kTile = 16;   // queries per warp tile (WMMA's M)
constexpr int kWarps = 8;   // tiles per block at most

constexpr std::size_t alignUp(std::size_t bytes) { return (bytes + 127) / 128 * 128; }

template <int D>
struct SpanConfig {
  // Keys per shared-memory block: 64, or 32 for D = 256 so that two stages fit.
  static constexpr int key_block = D <= 128 ? 64 : 32;
  // Row strides in shared memory, padded by 16 bytes so that the 8 rows a tensor-core load reads
  // fall in different banks.
  static constexpr int kv_ld = D + 8;              // bf16, K and V
  static constexpr int score_ld = key_block + 4;   // float, S and dP
  static constexpr int d_score_ld = key_block + 8; // bf16, dS
  static constexpr std::size_t kv_tile = alignUp(sizeof(bf16) * key_block * kv_ld);
  static constexpr std::size_t stage = 2 * kv_tile;  // K then V
  static constexpr std::size_t scores = alignUp(sizeof(float) * kTile * score_ld);
  static constexpr std::size_t d_scores = alignUp(sizeof(bf16) * kTile * d_score_ld);
  static constexpr std::size_t per_warp = 2 * scores + d_scores;
  static std::size_t bytes(int warps) { return 2 * stage + per_warp * warps; }
};

// Starts copying keys [j0, j0 + key_block) of one head into a shared tile (rows of kv_ld); rows
// past `keys` are zeroed at once.
template <int D>
__device__ void loadKeyBlockAsync(bf16* dst, const bf16* head, int j0, int keys) {
  using Config = SpanConfig<D>;
  constexpr int vectors_per_row = D / 8;  // 16-byte vectors of 8 bf16
  for (int i = threadIdx.x; i < Config::key_block * vectors_per_row; i += blockDim.x) {
    const int row = i / vectors_per_row, col = i % vectors_per_row;
    bf16* to = dst + row * Config::kv_ld + col * 8;
    const int j = j0 + row;
    if (j < keys) {
      copyAsync16(to, head + static_cast<std::int64_t>(j) * D + col * 8);
    } else {
      *reinterpret_cast<uint4*>(to) = make_uint4(0, 0, 0, 0);
    }
  }
}

template <int D>
__global__ void __launch_bounds__(32 * kWarps) spanBackwardKernel(SpanBackwardArgs a) {
  using Config = SpanConfig<D>;
  constexpr int kKeyBlock = Config::key_block;
  constexpr int kSteps = D / 16;             // 16-wide steps along D
  constexpr int kKeyTiles = kKeyBlock / 16;  // 16-wide steps along a key block
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ long long last_of_warp[kWarps];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warps = blockDim.x / 32;
  unsigned char* mine = smem + 2 * Config::stage + Config::per_warp * warp;
  float* scores = reinterpret_cast<float*>(mine);                       // [16, key_block]
  float* d_probs = reinterpret_cast<float*>(mine + Config::scores);     // [16, key_block]
  bf16* d_scores = reinterpret_cast<bf16*>(mine + 2 * Config::scores);  // [16, key_block]

  // This warp's tile: query head h_q (of the KV head's group) and queries [q0, q0 + 16).
  const int groups = a.q_heads / a.kv_heads;
  const int tiles_per_head = a.n_pad / kTile;
  const int tile = blockIdx.x * warps + warp;
  const bool active = tile < groups * tiles_per_head;
  const int b = blockIdx.y / a.kv_heads, h_kv = blockIdx.y % a.kv_heads;
  const int h_q = h_kv * groups + (active ? tile / tiles_per_head : 0);
  const int q0 = active ? (tile % tiles_per_head) * kTile : 0;
  const std::int64_t row0 = (static_cast<std::int64_t>(b) * a.q_heads + h_q) * a.n_pad + q0;

  // The last key this warp's queries see, then the block's: the keys the block streams.
  long long warp_last = -1;
  if (active && lane < kTile) warp_last = a.positions[q0 + lane];
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    warp_last = max(warp_last, __shfl_xor_sync(0xffffffffu, warp_last, offset));
  }
  if (lane == 0) last_of_warp[warp] = warp_last;
  __syncthreads();
  long long block_last = -1;
  for (int w = 0; w < warps; ++w) block_last = max(block_last, last_of_warp[w]);
  const int visible = static_cast<int>(min(block_last + 1, static_cast<long long>(a.keys)));
  const int blocks = (visible + kKeyBlock - 1) / kKeyBlock;
  const int per_split = (blocks + a.splits - 1) / a.splits;
  const int first_block = blockIdx.z * per_split;
  const int end_block = min(blocks, first_block + per_split);

  // This lane's share of the elementwise step: row lane / 2, half of the key block's columns.
  const int r = lane / 2, c0 = (lane % 2) * (kKeyBlock / 2);
  const float row_lse = active ? a.lse[row0 + r] : 0.0f;
  // δ of the lane's row, Σ_d dO·O in float32: each of the row's two lanes adds half of D.
  float row_delta = 0.0f;
  if (active) {
    const std::int64_t at = (row0 + r) * D + (lane % 2) * (D / 2);
    const auto* o_row =
        reinterpret_cast<const __nv_bfloat162*>(static_cast<const bf16*>(a.out) + at);
    const auto* do_row =
        reinterpret_cast<const __nv_bfloat162*>(static_cast<const bf16*>(a.d_out) + at);
#pragma unroll 8
    for (int i = 0; i < D / 4; ++i) {
      const float2 o = __bfloat1622float2(o_row[i]), d = __bfloat1622float2(do_row[i]);
      row_delta += d.x * o.x;
      row_delta += d.y * o.y;
    }
  }
  row_delta += __shfl_xor_sync(0xffffffffu, row_delta, 1);
  const long long row_pos = active ? a.positions[q0 + r] : -1;

  wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> q_frag[kSteps], d_out_frag[kSteps];
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> d_q[kSteps];
  const bf16* q = static_cast<const bf16*>(a.q) + row0 * D;
  const bf16* d_out = static_cast<const bf16*>(a.d_out) + row0 * D;
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    if (active) {
      wmma::load_matrix_sync(q_frag[s], q + s * 16, D);
      wmma::load_matrix_sync(d_out_frag[s], d_out + s * 16, D);
    }
    wmma::fill_fragment(d_q[s], 0.0f);
  }
  const std::int64_t head_offset = static_cast<std::int64_t>(b) * a.batch_stride + h_kv * a.head_stride;
  const bf16* k_head = static_cast<const bf16*>(a.k) + head_offset;
  const bf16* v_head = static_cast<const bf16*>(a.v) + head_offset;
  auto k_stage = [&](int stage) { return reinterpret_cast<bf16*>(smem + stage * Config::stage); };
  auto v_stage = [&](int stage) {
    return reinterpret_cast<bf16*>(smem + stage * Config::stage + Config::kv_tile);
  };

  if (first_block < end_block) {
    loadKeyBlockAsync<D>(k_stage(0), k_head, first_block * kKeyBlock, a.keys);
    loadKeyBlockAsync<D>(v_stage(0), v_head, first_block * kKeyBlock, a.keys);
    commitAsync();
  }
  for (int block = first_block; block < end_block; ++block) {
    const int stage = (block - first_block) % 2;
    // The next block loads into the other stage, which the last iteration finished with.
    if (block + 1 < end_block) {
      loadKeyBlockAsync<D>(k_stage(1 - stage), k_head, (block + 1) * kKeyBlock, a.keys);
      loadKeyBlockAsync<D>(v_stage(1 - stage), v_head, (block + 1) * kKeyBlock, a.keys);
      commitAsync();
      waitAsync<1>();
    } else {
      waitAsync<0>();
    }
    __syncthreads();  // this block's keys and values are in shared memory for every warp

    const int j0 = block * kKeyBlock;
    if (active && j0 <= warp_last) {
      const bf16* k_block = k_stage(stage);
      const bf16* v_block = v_stage(stage);
      // S = Q·Kᵀ and dP = dO·Vᵀ: [16, key_block] each, 16 keys at a time.
#pragma unroll
      for (int n = 0; n < kKeyTiles; ++n) {
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> s_acc, dp_acc;
        wmma::fill_fragment(s_acc, 0.0f);
        wmma::fill_fragment(dp_acc, 0.0f);
#pragma unroll
        for (int s = 0; s < kSteps; ++s) {
          wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> kt, vt;
          wmma::load_matrix_sync(kt, k_block + n * 16 * Config::kv_ld + s * 16, Config::kv_ld);
          wmma::load_matrix_sync(vt, v_block + n * 16 * Config::kv_ld + s * 16, Config::kv_ld);
          wmma::mma_sync(s_acc, q_frag[s], kt, s_acc);
          wmma::mma_sync(dp_acc, d_out_frag[s], vt, dp_acc);
        }
        wmma::store_matrix_sync(scores + n * 16, s_acc, Config::score_ld, wmma::mem_row_major);
        wmma::store_matrix_sync(d_probs + n * 16, dp_acc, Config::score_ld, wmma::mem_row_major);
      }
      __syncwarp();
      // dS = P ∘ (dP − δ), P = exp(S·scale − lse) where the key is visible to the query.
#pragma unroll
      for (int c = c0; c < c0 + kKeyBlock / 2; ++c) {
        const int j = j0 + c;
        float d_score = 0.0f;
        if (j <= row_pos && j < a.keys) {
          const float p = __expf(scores[r * Config::score_ld + c] * a.scale - row_lse);
          d_score = p * (d_probs[r * Config::score_ld + c] - row_delta);
        }
        d_scores[r * Config::d_score_ld + c] = __float2bfloat16(d_score);
      }
      __syncwarp();
      // dQ += dS·K: [16, key_block] · [key_block, D].
#pragma unroll
      for (int kk = 0; kk < kKeyTiles; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> ds;
        wmma::load_matrix_sync(ds, d_scores + kk * 16, Config::d_score_ld);
#pragma unroll
        for (int s = 0; s < kSteps; ++s) {
          wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> kb;
          wmma::load_matrix_sync(kb, k_block + kk * 16 * Config::kv_ld + s * 16, Config::kv_ld);
          wmma::mma_sync(d_q[s], ds, kb, d_q[s]);
        }
      }
    }
    __syncthreads();  // every warp is done with this stage before the next iteration refills it
  }

  if (!active) return;
  const std::int64_t out_row =
      ((static_cast<std::int64_t>(blockIdx.z) * a.batch + b) * a.q_heads + h_q) * a.n_pad + q0;
  float* out = a.d_q_partial + out_row * D;
#pragma unroll
  for (int s = 0; s < kSteps; ++s) wmma::store_matrix_sync(out + s * 16, d_q[s], D, wmma::mem_row_major);
}

// dQ = scale · Σ_splits partial, rows past n left out; a thread per element of d_q.
template <typename Out>
__global__ void spanDqReduceKernel(const float* partial, Out* d_q, std::int64_t count, int n,
                                   int n_pad, int dim, int splits, std::int64_t split_stride,
                                   float scale) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t d = i % dim, row = i / dim;  // row: (batch · head) · n + query
    const std::int64_t from = (row / n * n_pad + row % n) * dim + d;
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += partial[s * split_stride + from];
    sum *= scale;
    if constexpr (std::is_same_v<Out, bf16>) {
      d_q[i] = __float2bfloat16(sum);
    } else {
      d_q[i] = sum;
    }
  }
}

int warpsPerBlock(const SpanBackwardArgs& a) {
  return std::min(kWarps, a.q_heads / a.kv_heads * (a.n_pad / kTile));
}

int keyBlock(int dim) { return dim <= 128 ? 64 : 32; }

template <int D>
const char* launch(const SpanBackwardArgs& a, cudaStream_t stream) {
  const int warps = warpsPerBlock(a);
  const int tiles = a.q_heads / a.kv_heads * (a.n_pad / kTile);
  const dim3 grid((tiles + warps - 1) / warps, a.batch * a.kv_heads, a.splits);
  return launchWithSharedBytes(spanBackwardKernel<D>, grid, 32 * warps, SpanConfig<D>::bytes(warps),
                               stream, a);
}

}  // namespace

bool spanBackwardSupported(int dim, int groups) {
  return (dim == 32 || dim == 64 || dim == 128 || dim == 256) && groups >= 1 && groups <= 8;
}

int spanBackwardSplits(const SpanBackwardArgs& a) {
  int device = 0, multiprocessors = 132;
  if (cudaGetDevice(&device) == cudaSuccess) {
    cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device);
  }
  const int tiles = a.q_heads / a.kv_heads * (a.n_pad / kTile);
  const int warps = std::max(1, warpsPerBlock(a));
  const long long blocks =
      static_cast<long long>((tiles + warps - 1) / warps) * a.batch * a.kv_heads;
  const long long key_blocks = std::max(1, (a.keys + keyBlock(a.dim) - 1) / keyBlock(a.dim));
  // One block fits a multiprocessor (its registers and shared memory): one wave, never a few
  // blocks left over for a second (a grid of 2.06 waves ran as 3, ncu on an H200).
  const long long wanted = multiprocessors / std::max(1LL, blocks);
  return static_cast<int>(std::clamp(wanted, 1LL, key_blocks));
}

const char* spanDqReduce(const SpanBackwardArgs& a, int n, bool bf16_out, void* d_q,
                         void* stream_ptr) {
  if (n < 1 || n > a.n_pad || a.splits < 1) return "span attention backward: bad dQ reduction";
  const std::int64_t rows = static_cast<std::int64_t>(a.batch) * a.q_heads;
  const std::int64_t count = rows * n * a.dim;
  const std::int64_t split_stride = rows * a.n_pad * a.dim;
  constexpr int kThreads = 256;
  const int blocks =
      static_cast<int>(std::min<std::int64_t>((count + kThreads - 1) / kThreads, 4096));
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (bf16_out) {
    spanDqReduceKernel<bf16><<<blocks, kThreads, 0, stream>>>(
        a.d_q_partial, static_cast<bf16*>(d_q), count, n, a.n_pad, a.dim, a.splits, split_stride,
        a.scale);
  } else {
    spanDqReduceKernel<float><<<blocks, kThreads, 0, stream>>>(
        a.d_q_partial, static_cast<float*>(d_q), count, n, a.n_pad, a.dim, a.splits,
        split_stride, a.scale);
  }
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? "" : cudaGetErrorString(error);
}

const char* spanAttentionBackwardDq(const SpanBackwardArgs& a, void* stream_ptr) {
  if (a.kv_heads < 1 || a.q_heads % a.kv_heads != 0 || a.n_pad < kTile || a.n_pad % kTile != 0 ||
      a.splits < 1 || !spanBackwardSupported(a.dim, a.q_heads / a.kv_heads)) {
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

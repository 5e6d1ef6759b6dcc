#include "core/model/decode_attention.h"

#include <cstdint>

#include "core/common/error.h"

#if defined(STUDIO_HAVE_CUDA_KERNELS)
#include <c10/cuda/CUDAStream.h>

#include "core/model/kernel_device.h"
#include "core/model/kernel_element_type.h"
#include "core/model/kernel_switches.h"
#include "kernels/decode_attention.h"
#endif

namespace studio::model {

using torch::Tensor;

namespace {

// The reference: the visible keys on the host's count, through the chunked composition.
AttentionOutput composedDecodeAttention(const Tensor& q,
                                        const std::vector<std::pair<Tensor, Tensor>>& segments,
                                        const Tensor& key_count, double scale) {
  const std::int64_t count = key_count.to(torch::kCPU).item<std::int64_t>();
  std::vector<std::pair<Tensor, Tensor>> visible;
  std::int64_t offset = 0;
  for (const auto& [k, v] : segments) {
    const std::int64_t rows = std::min(k.size(2), count - offset);
    if (rows <= 0) break;
    visible.emplace_back(k.narrow(2, 0, rows), v.narrow(2, 0, rows));
    offset += rows;
  }
  if (offset != count) {
    throwError(ErrorKind::Internal, "", "decode attention",
               "the segments hold " + std::to_string(offset) + " keys, not " + std::to_string(count));
  }
  const Tensor position = torch::full({1}, count - 1, torch::TensorOptions(torch::kInt64).device(q.device()));
  AttentionOutput result = causalAttentionSegments(q, visible, position, scale);
  result.out = result.out.to(q.scalar_type());
  result.lse = result.lse.to(torch::kFloat32);
  return result;
}

// split_keys as decodeAttention takes it: 0, or a positive multiple of kDecodeSplitKeysMultiple.
void checkSplitKeys(int split_keys) {
  if (split_keys < 0 || split_keys % kDecodeSplitKeysMultiple != 0) {
    throwArgument("decode attention split_keys", std::to_string(split_keys) +
                                                     " is not 0 or a positive multiple of " +
                                                     std::to_string(kDecodeSplitKeysMultiple));
  }
}

}  // namespace

#if defined(STUDIO_HAVE_CUDA_KERNELS)

static_assert(kDecodeAttentionMaxSegments == kernels::kDecodeMaxSegments);
static_assert(kDecodeSplitKeysMultiple == kernels::kDecodeSplitKeysMultiple);

int decodeAttentionDefaultSplitKeys(std::int64_t positions) {
  return kernels::decodeAttentionSplitKeys(positions);
}

std::string decodeAttentionKernelRefusal(const torch::Device& device, torch::ScalarType dtype,
                                         std::int64_t head_dim, std::size_t segments) {
  if (!device.is_cuda()) return "the decode attention kernel runs on CUDA only";
  if (!kernelsRunOn(device)) {
    const int capability = kernels::computeCapability(device.index());
    return "the decode attention kernel needs compute capability 8.0 or later (this GPU: " +
           (capability > 0 ? std::to_string(capability / 10) + "." + std::to_string(capability % 10)
                           : std::string("unknown")) +
           ")";
  }
  if (!kernelElementType(dtype)) {
    return "the decode attention kernel takes float32, bfloat16 and float16";
  }
  if (!kernels::decodeAttentionSupported(static_cast<int>(head_dim))) {
    return "the decode attention kernel takes head_dim up to 256";
  }
  if (segments < 1 || segments > static_cast<std::size_t>(kernels::kDecodeMaxSegments)) {
    return "the decode attention kernel reads 1 to " +
           std::to_string(kernels::kDecodeMaxSegments) + " cache segments";
  }
  return {};
}

AttentionOutput decodeAttention(const Tensor& q,
                                const std::vector<std::pair<Tensor, Tensor>>& segments,
                                const Tensor& key_count, double scale, int split_keys) {
  checkSplitKeys(split_keys);
  if (!decodeAttentionKernelRefusal(q.device(), q.scalar_type(), q.size(3), segments.size()).empty()) {
    return composedDecodeAttention(q, segments, key_count, scale);
  }
  const auto B = q.size(0), Hq = q.size(1), D = q.size(3);
  const Tensor q_rows = q.reshape({B, Hq, D}).contiguous();  // [B, Hq, D]
  kernels::DecodeAttentionArgs a;
  a.type = *kernelElementType(q.scalar_type());  // checked by the refusal above
  a.q = q_rows.data_ptr();
  std::vector<Tensor> converted;  // keeps segments of another dtype alive through the launch
  std::int64_t offset = 0;
  for (const auto& [k_in, v_in] : segments) {
    Tensor k = k_in, v = v_in;
    if (k.scalar_type() != q.scalar_type() || k.stride(3) != 1) k = k.to(q.scalar_type()).contiguous();
    if (v.scalar_type() != q.scalar_type() || v.stride(3) != 1) v = v.to(q.scalar_type()).contiguous();
    converted.push_back(k);
    converted.push_back(v);
    kernels::DecodeSegment& s = a.segments[a.segment_count++];
    s.k = k.data_ptr();
    s.v = v.data_ptr();
    s.k_batch_stride = k.stride(0), s.k_head_stride = k.stride(1), s.k_row_stride = k.stride(2);
    s.v_batch_stride = v.stride(0), s.v_head_stride = v.stride(1), s.v_row_stride = v.stride(2);
    s.offset = offset;
    s.rows = k.size(2);
    offset += k.size(2);
  }
  a.key_count = key_count.data_ptr<std::int64_t>();
  a.batch = static_cast<int>(B);
  a.q_heads = static_cast<int>(Hq);
  a.kv_heads = static_cast<int>(segments.front().first.size(1));
  a.dim = static_cast<int>(D);
  a.scale = static_cast<float>(scale);
  // One vector load per lane and row where every row starts on a chunk boundary.
  const std::int64_t chunk = kernels::decodeAttentionChunk(a.dim);
  const auto aligned = [&](const void* p, std::int64_t b, std::int64_t h, std::int64_t r) {
    const auto bytes = chunk * static_cast<std::int64_t>(q.element_size());
    return reinterpret_cast<std::uintptr_t>(p) % static_cast<std::uintptr_t>(bytes) == 0 &&
           b % chunk == 0 && h % chunk == 0 && r % chunk == 0;
  };
  a.vector_loads = D % chunk == 0;
  for (int i = 0; i < a.segment_count; ++i) {
    const kernels::DecodeSegment& s = a.segments[i];
    a.vector_loads = a.vector_loads &&
                     aligned(s.k, s.k_batch_stride, s.k_head_stride, s.k_row_stride) &&
                     aligned(s.v, s.v_batch_stride, s.v_head_stride, s.v_row_stride);
  }
  // The kernel stages the rows where they are whole, aligned 16-byte vectors.
  a.staged = environmentSwitch("STUDIO_DECODE_ATTENTION", "staged");
  a.split_keys = split_keys > 0 ? split_keys : kernels::decodeAttentionSplitKeys(offset);
  a.splits = static_cast<int>((offset + a.split_keys - 1) / a.split_keys);
  const auto f32 = q.options().dtype(torch::kFloat32);
  const Tensor partial_out = torch::empty({B, Hq, a.splits, D}, f32);
  const Tensor partial_max = torch::empty({B, Hq, a.splits}, f32);
  const Tensor partial_sum = torch::empty({B, Hq, a.splits}, f32);
  AttentionOutput result{torch::empty({B, Hq, 1, D}, q.options()), torch::empty({B, Hq, 1}, f32)};
  a.partial_out = partial_out.data_ptr<float>();
  a.partial_max = partial_max.data_ptr<float>();
  a.partial_sum = partial_sum.data_ptr<float>();
  a.out = result.out.data_ptr();
  a.lse = result.lse.data_ptr<float>();
  if (const char* error = kernels::decodeAttention(a, c10::cuda::getCurrentCUDAStream().stream())) {
    throwError(ErrorKind::Internal, "", "decode attention", error);
  }
  return result;
}

#else

std::string decodeAttentionKernelRefusal(const torch::Device&, torch::ScalarType, std::int64_t,
                                         std::size_t) {
  return "this build has no CUDA kernels (it needs nvcc and a CUDA libtorch)";
}

int decodeAttentionDefaultSplitKeys(std::int64_t) {
  return 0;
}

AttentionOutput decodeAttention(const Tensor& q,
                                const std::vector<std::pair<Tensor, Tensor>>& segments,
                                const Tensor& key_count, double scale, int split_keys) {
  checkSplitKeys(split_keys);
  return composedDecodeAttention(q, segments, key_count, scale);
}

#endif

}  // namespace studio::model

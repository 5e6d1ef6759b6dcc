#include "core/probe/probe_kernel.h"

#include "core/common/error.h"

#if defined(STUDIO_HAVE_CUDA_KERNELS)
#include <c10/cuda/CUDAStream.h>

#include "core/model/kernel_device.h"
#include "core/model/kernel_element_type.h"
#include "kernels/probe_stats.h"
#endif

namespace studio::probe {

using torch::Tensor;

#if defined(STUDIO_HAVE_CUDA_KERNELS)

namespace {

// Enough blocks to fill a large GPU several times over; a split covers at least 256 keys.
constexpr std::int64_t kProbeTargetBlocks = 528;
constexpr std::int64_t kProbeMinKeysPerSplit = 256;

// The segment as the kernel reads it: a supported dtype, rows of D contiguous.
Tensor kernelSegment(const Tensor& k) {
  if (!model::kernelElementType(k.scalar_type())) return k.to(torch::kFloat32).contiguous();
  return k.stride(2) == 1 && k.stride(1) == k.size(2) ? k : k.contiguous();
}

void check(const char* error) {
  if (error[0] != '\0') throwError(ErrorKind::Internal, "", "probe kernel", error);
}

}  // namespace

std::optional<QuerySums> probeSumsOnDevice(const Tensor& q_in, const Tensor& lse,
                                           const std::vector<Tensor>& key_segments,
                                           const std::vector<std::int64_t>& positions,
                                           const std::vector<Span>& targets, double scale,
                                           const ProbeOptions& options) {
  if (key_segments.empty() || !model::kernelsRunOn(key_segments.front().device()) ||
      q_in.size(2) > 256 ||
      options.deltas.size() > static_cast<std::size_t>(kernels::kProbeMaxDeltas)) {
    return std::nullopt;
  }
  const auto Hq = q_in.size(0), n = q_in.size(1), D = q_in.size(2);
  const torch::Device device = key_segments.front().device();
  const auto on_device = [&](torch::ScalarType type) { return torch::TensorOptions(type).device(device); };
  const Tensor q = q_in.to(device, torch::kFloat32).contiguous();    // [Hq, n, D]
  const Tensor lse_d = lse.to(device, torch::kFloat64).contiguous();  // [Hq, n]
  const Tensor pos = torch::tensor(positions, torch::kInt64).to(device);
  std::vector<std::int64_t> spans;
  for (const Span& span : targets) {
    spans.push_back(span.start);
    spans.push_back(span.end);
  }
  const Tensor spans_d = spans.empty() ? torch::zeros({2}, on_device(torch::kInt64))
                                       : torch::tensor(spans, torch::kInt64).to(device);

  // Each segment's share of the splits, by its length.
  std::vector<Tensor> segments;
  std::vector<int> splits;
  int total = 0;
  for (const Tensor& k : key_segments) {
    segments.push_back(kernelSegment(k));
    const std::int64_t by_blocks = std::max<std::int64_t>(1, kProbeTargetBlocks / (n * Hq));
    const std::int64_t by_keys = std::max<std::int64_t>(1, k.size(1) / kProbeMinKeysPerSplit);
    splits.push_back(static_cast<int>(std::min(by_blocks, by_keys)));
    total += splits.back();
  }
  const auto deltas = static_cast<std::int64_t>(options.deltas.size());
  Tensor best_target = torch::empty({n, Hq, total}, on_device(torch::kFloat64));
  Tensor best_index = torch::empty({n, Hq, total}, on_device(torch::kInt64));
  Tensor best_other = torch::empty({n, Hq, total}, on_device(torch::kFloat64));
  Tensor mass = torch::empty({n, Hq, total}, on_device(torch::kFloat64));
  Tensor other_mass = torch::empty({n, Hq, total}, on_device(torch::kFloat64));
  Tensor rest = torch::empty({n, Hq, total}, on_device(torch::kFloat64));
  Tensor near_ties = torch::empty({n, Hq, total, std::max<std::int64_t>(deltas, 1)}, on_device(torch::kInt64));
  Tensor target_keys = torch::empty({n, Hq, total}, on_device(torch::kInt64));

  std::vector<kernels::ProbeArgs> args(segments.size());
  std::int64_t offset = 0;
  int base = 0;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const Tensor& k = segments[s];
    kernels::ProbeArgs& a = args[s];
    a.q = q.data_ptr<float>();
    a.lse = lse_d.data_ptr<double>();
    a.positions = pos.data_ptr<std::int64_t>();
    a.k = k.data_ptr();
    a.key_type = *model::kernelElementType(k.scalar_type());  // kernelSegment's dtype
    a.head_stride = k.stride(0);
    a.key_offset = offset;
    a.len = static_cast<int>(k.size(1));
    a.targets = spans_d.data_ptr<std::int64_t>();
    a.spans = static_cast<int>(targets.size());
    a.q_heads = static_cast<int>(Hq);
    a.kv_heads = static_cast<int>(k.size(0));
    a.n = static_cast<int>(n);
    a.dim = static_cast<int>(D);
    a.scale = scale;
    a.deltas = static_cast<int>(deltas);
    for (std::int64_t d = 0; d < deltas; ++d) a.delta[d] = options.deltas[static_cast<std::size_t>(d)];
    a.splits = splits[s];
    a.split_base = base;
    a.total_splits = total;
    a.best_target = best_target.data_ptr<double>();
    a.best_index = best_index.data_ptr<std::int64_t>();
    a.best_other = best_other.data_ptr<double>();
    a.mass = mass.data_ptr<double>();
    a.other_mass = other_mass.data_ptr<double>();
    a.rest = rest.data_ptr<double>();
    a.near_ties = near_ties.data_ptr<std::int64_t>();
    a.target_keys = target_keys.data_ptr<std::int64_t>();
    offset += k.size(1);
    base += splits[s];
  }
  // Pass 2 needs every segment's best target: all of pass 1 first.
  void* stream = c10::cuda::getCurrentCUDAStream().stream();
  for (const auto& a : args) check(kernels::probeBestLogits(a, stream));
  for (const auto& a : args) check(kernels::probeMasses(a, stream));

  // Combine the splits in float64 on the host: [n, Hq, splits] -> [Hq, n].
  const auto host = [](const Tensor& t) { return t.to(torch::kCPU); };
  QuerySums sums;
  sums.mass = host(mass.sum(2)).t().contiguous();
  sums.other_mass = host(other_mass.sum(2)).t().contiguous();
  sums.max_target = host(std::get<0>(best_target.max(2))).t().contiguous();
  sums.max_other = host(std::get<0>(best_other.max(2))).t().contiguous();
  sums.log_rest = (lse + host(rest.sum(2)).t().log()).contiguous();
  sums.target_keys = host(target_keys.sum(2)).t().contiguous();
  const Tensor ties = host(near_ties.sum(2));  // [n, Hq, deltas]
  for (std::int64_t d = 0; d < deltas; ++d) sums.near_ties.push_back(ties.select(2, d).t().contiguous());
  return sums;
}

#else

std::optional<QuerySums> probeSumsOnDevice(const Tensor&, const Tensor&, const std::vector<Tensor>&,
                                           const std::vector<std::int64_t>&, const std::vector<Span>&,
                                           double, const ProbeOptions&) {
  return std::nullopt;
}

#endif

}  // namespace studio::probe

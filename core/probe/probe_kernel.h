#pragma once
// The probe's sums on CUDA, from the kernel of kernels/probe_stats.cu: no [queries, keys] matrix
// is written, on the device or the host.

#include <optional>

#include "core/probe/probe_math.h"

namespace studio::probe {

// The arguments of queryStats (lse already float64 on the CPU). nullopt when the kernel does not
// apply: keys not on CUDA, a build without the kernels, D > 256 or more than 8 Δ values.
std::optional<QuerySums> probeSumsOnDevice(const torch::Tensor& q, const torch::Tensor& lse,
                                           const std::vector<torch::Tensor>& key_segments,
                                           const std::vector<std::int64_t>& positions,
                                           const std::vector<Span>& targets, double scale,
                                           const ProbeOptions& options);

}  // namespace studio::probe

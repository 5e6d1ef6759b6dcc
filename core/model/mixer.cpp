#include "core/model/mixer.h"

#include "core/common/error.h"

namespace studio::model {

torch::Tensor ForwardCapture::lse(int layer) const {
  const auto& chunks = layers.at(static_cast<std::size_t>(layer)).lse_chunks;
  if (chunks.empty()) throwError(ErrorKind::Internal, "", "capture", "no lse was recorded");
  return chunks.size() == 1 ? chunks.front() : torch::cat(chunks, 2);
}

torch::Tensor ForwardCapture::queries(int layer) const {
  const auto& chunks = layers.at(static_cast<std::size_t>(layer)).q_chunks;
  if (chunks.empty()) throwError(ErrorKind::Internal, "", "capture", "no query was recorded");
  return chunks.size() == 1 ? chunks.front() : torch::cat(chunks, 2);
}

torch::Tensor ForwardCapture::queryLse(int layer) const {
  const auto& chunks = layers.at(static_cast<std::size_t>(layer)).q_lse_chunks;
  if (chunks.empty()) throwError(ErrorKind::Internal, "", "capture", "no query was recorded");
  return chunks.size() == 1 ? chunks.front() : torch::cat(chunks, 2);
}

void FastWeightLosses::append(int layer, const torch::Tensor& positions, const torch::Tensor& init,
                              const torch::Tensor& before, const torch::Tensor& after) {
  if (layers.size() <= static_cast<std::size_t>(layer)) {
    layers.resize(static_cast<std::size_t>(layer) + 1);
  }
  Layer& out = layers[static_cast<std::size_t>(layer)];
  auto values = [](const torch::Tensor& t) {
    const torch::Tensor host = t.detach().to(torch::kCPU, torch::kFloat64).contiguous();
    return std::vector<double>(host.data_ptr<double>(), host.data_ptr<double>() + host.numel());
  };
  const torch::Tensor host_positions = positions.to(torch::kCPU, torch::kInt64).contiguous();
  const auto* p = host_positions.data_ptr<std::int64_t>();
  out.positions.insert(out.positions.end(), p, p + host_positions.numel());
  for (auto [from, to] : {std::pair{&init, &out.init}, std::pair{&before, &out.before},
                          std::pair{&after, &out.after}}) {
    const auto v = values(*from);
    to->insert(to->end(), v.begin(), v.end());
  }
}

}  // namespace studio::model

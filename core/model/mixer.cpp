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

}  // namespace studio::model

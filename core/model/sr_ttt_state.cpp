#include "core/model/sr_ttt_state.h"

#include "core/common/error.h"

namespace studio::model {

namespace {

torch::Tensor srTttKeepFirst(const torch::Tensor& t, std::int64_t dim, std::int64_t n) {
  return n == 0 ? torch::Tensor() : t.narrow(dim, 0, n);
}

std::int64_t srTttTensorBytes(const torch::Tensor& t) {
  return t.defined() ? t.numel() * static_cast<std::int64_t>(t.element_size()) : 0;
}

}  // namespace

void SrTttLayerState::dropLast(std::int64_t n) {
  if (n <= 0) return;
  if (n > openChunk() || n > openWindow()) {
    throwError(ErrorKind::Internal, "", "SR-TTT state",
               "cannot forget " + std::to_string(n) + " tokens past the open chunk or window");
  }
  const std::int64_t chunk = openChunk() - n;
  const std::int64_t window = openWindow() - n;
  chunk_keys = srTttKeepFirst(chunk_keys, 2, chunk);
  chunk_residuals = srTttKeepFirst(chunk_residuals, 2, chunk);
  window_hidden = srTttKeepFirst(window_hidden, 0, window);
  window_losses.resize(static_cast<std::size_t>(window));
}

std::int64_t SrTttLayerState::bytes() const {
  std::int64_t total = srTttTensorBytes(fast) + srTttTensorBytes(chunk_keys) +
                       srTttTensorBytes(chunk_residuals) + srTttTensorBytes(window_hidden) +
                       srTttTensorBytes(cache.hidden);
  total += static_cast<std::int64_t>(window_losses.size() * sizeof(double));
  total += cache.size() * static_cast<std::int64_t>(sizeof(std::int64_t) * 2 + sizeof(float));
  return total;
}

}  // namespace studio::model

#include "core/model/residual_cache.h"

#include <algorithm>
#include <numeric>

#include "core/common/error.h"

namespace studio::model {

std::vector<std::int64_t> ResidualCache::insert(const torch::Tensor& rows,
                                                const std::vector<std::int64_t>& token_positions,
                                                const std::vector<double>& losses,
                                                std::int64_t capacity) {
  auto N = static_cast<std::int64_t>(token_positions.size());
  if (losses.size() != token_positions.size() || (N > 0 && rows.size(0) != N)) {
    throwError(ErrorKind::Internal, "", "residual cache", "rows, positions and losses disagree");
  }
  std::vector<std::int64_t> evicted;
  if (N == 0) return evicted;
  for (std::int64_t& a : age) ++a;
  const std::int64_t count = size();
  std::vector<std::int64_t> keep(static_cast<std::size_t>(count));
  std::iota(keep.begin(), keep.end(), 0);
  if (count + N > capacity) {
    const std::int64_t n = count + N - capacity;
    if (n >= count) {
      evicted = positions;
      keep.clear();
      ++overflows;
      v2_total_evictions = 0;  // v2's reset() zeroes its counters
    } else {
      // float32, as v2 computes cache_surprisals / (1 + cache_ages).
      std::vector<float> priority(static_cast<std::size_t>(count));
      for (std::int64_t i = 0; i < count; ++i) {
        priority[static_cast<std::size_t>(i)] =
            surprisal[static_cast<std::size_t>(i)] /
            (1.0f + static_cast<float>(age[static_cast<std::size_t>(i)]));
      }
      std::stable_sort(keep.begin(), keep.end(), [&](std::int64_t a, std::int64_t b) {
        return priority[static_cast<std::size_t>(a)] > priority[static_cast<std::size_t>(b)];
      });
      for (std::int64_t i = count - n; i < count; ++i) {
        evicted.push_back(positions[static_cast<std::size_t>(keep[static_cast<std::size_t>(i)])]);
      }
      keep.resize(static_cast<std::size_t>(count - n));
      std::sort(keep.begin(), keep.end());
      v2_total_evictions += n;
    }
    evictions += static_cast<std::int64_t>(evicted.size());
    const std::int64_t room = capacity - static_cast<std::int64_t>(keep.size());
    if (N > room) {
      dropped += N - room;
      N = room;
    }
  }

  std::vector<std::int64_t> kept_positions, kept_age;
  std::vector<float> kept_surprisal;
  for (const std::int64_t slot : keep) {
    kept_positions.push_back(positions[static_cast<std::size_t>(slot)]);
    kept_surprisal.push_back(surprisal[static_cast<std::size_t>(slot)]);
    kept_age.push_back(age[static_cast<std::size_t>(slot)]);
  }
  for (std::int64_t i = 0; i < N; ++i) {
    kept_positions.push_back(token_positions[static_cast<std::size_t>(i)]);
    kept_surprisal.push_back(static_cast<float>(losses[static_cast<std::size_t>(i)]));
    kept_age.push_back(0);
  }
  // [C', d_model]: new tensors, never written in place, so forked states may share them.
  torch::Tensor kept_rows;
  if (!keep.empty()) {
    kept_rows =
        static_cast<std::int64_t>(keep.size()) == count
            ? hidden
            : hidden.index_select(0, torch::tensor(keep, torch::kInt64).to(hidden.device()));
  }
  const torch::Tensor added = rows.narrow(0, 0, N).to(torch::kFloat32);
  hidden = kept_rows.defined() ? torch::cat({kept_rows, added}, 0) : added.clone();
  positions = std::move(kept_positions);
  surprisal = std::move(kept_surprisal);
  age = std::move(kept_age);
  return evicted;
}

torch::Tensor ResidualCache::positionTensor(const torch::Device& device) const {
  return torch::tensor(positions, torch::kInt64).to(device);
}

}  // namespace studio::model

#pragma once
// The reference the cached paths are tested against: a full forward of a token sequence, no cache.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "core/model/causal_lm.h"

namespace studio::test {

// Full forward (no cache) of `ids` [T] -> logits [T, vocab].
torch::Tensor fullLogits(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids);

}  // namespace studio::test

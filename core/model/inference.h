#pragma once
// The two ways tokens enter a cache at inference time: a chunked prefill and single decode steps.

#include <torch/torch.h>

#include <vector>

#include "core/model/causal_lm.h"
#include "core/model/kv_cache.h"
#include "core/model/mixer.h"

namespace studio::model {

struct PrefillOptions {
  std::int64_t chunk = 512;            // tokens per forward; bounds activation memory
  ForwardCapture* capture = nullptr;   // e.g. the answer query's q and lse for the probe
  // Called after each chunk with the tokens done so far; returning false stops the prefill
  // (cancellation) and prefill() throws Error(Cancelled).
  std::function<bool(std::int64_t done, std::int64_t total)> progress;
};

// Appends `ids` to `cache` (which may already hold a prefix) and returns the logits [vocab]
// predicting the token after the last one.
torch::Tensor prefill(CausalLMImpl& lm, KVCache& cache, const std::vector<std::int64_t>& ids,
                      const PrefillOptions& options = {});

// Feeds one token at the next position; returns the logits [vocab] for the token after it.
torch::Tensor decodeStep(CausalLMImpl& lm, KVCache& cache, std::int64_t token,
                         ForwardCapture* capture = nullptr);

}  // namespace studio::model

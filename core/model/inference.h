#pragma once
// The two ways tokens enter a model state at inference time: a chunked prefill and single decode
// steps.

#include <torch/torch.h>

#include <vector>

#include "core/model/causal_lm.h"
#include "core/model/mixer.h"
#include "core/model/model_state.h"

namespace studio::model {

// Tokens per prefill forward when PrefillOptions::chunk is 0: 512 on the CPU, where it bounds
// activation memory; 8192 on CUDA, where 512-token forwards leave the GPU half idle (Qwen3-1.7B
// shape, 32k tokens on an H200: MFU 16.6 % at 512, 32.5 % at 8192 for 0.5 GB more; docs/gpu.md).
std::int64_t defaultPrefillChunk(const torch::Device& device);

struct PrefillOptions {
  std::int64_t chunk = 0;  // tokens per forward (bounds activation memory); 0: defaultPrefillChunk
  ForwardCapture* capture = nullptr;   // e.g. the answer query's q and lse for the probe
  FastWeightLosses* fast_weight_losses = nullptr;  // TTT layers' inner losses per token
  RoutingTrace* routing = nullptr;                 // SR-TTT layers' routing (routing_trace.h)
  // Called after each chunk with the tokens done so far; returning false stops the prefill
  // (cancellation) and prefill() throws Error(Cancelled).
  std::function<bool(std::int64_t done, std::int64_t total)> progress;
};

// Reads `ids` into `state` (which may already hold a prefix) and returns the logits [vocab]
// predicting the token after the last one.
torch::Tensor prefill(CausalLMImpl& lm, ModelState& state, const std::vector<std::int64_t>& ids,
                      const PrefillOptions& options = {});

// Reads one token at the next position; returns the logits [vocab] for the token after it.
torch::Tensor decodeStep(CausalLMImpl& lm, ModelState& state, std::int64_t token,
                         ForwardCapture* capture = nullptr,
                         FastWeightLosses* fast_weight_losses = nullptr,
                         RoutingTrace* routing = nullptr);
// The same for a token chosen on the device ([1] int64, e.g. an argmax), so that the host need
// not wait for it: it is not checked against the vocabulary (that would read it back).
torch::Tensor decodeStep(CausalLMImpl& lm, ModelState& state, const torch::Tensor& token);

}  // namespace studio::model

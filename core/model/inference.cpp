#include "core/model/inference.h"

#include "core/common/error.h"

namespace studio::model {

std::int64_t defaultPrefillChunk(const torch::Device& device) {
  return device.is_cuda() ? 8192 : 512;
}

torch::Tensor prefill(CausalLMImpl& lm, ModelState& state, const std::vector<std::int64_t>& ids,
                      const PrefillOptions& options) {
  if (ids.empty()) throwArgument("prompt", "nothing to prefill");
  for (std::int64_t id : ids) {
    if (id < 0 || id >= lm.config().vocab_size) {
      throwArgument("ids", "token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                               std::to_string(lm.config().vocab_size) + ")");
    }
  }
  torch::NoGradGuard no_grad;
  const auto total = static_cast<std::int64_t>(ids.size());
  state.reserve(state.length() + total);
  const std::int64_t chunk = options.chunk > 0 ? options.chunk : defaultPrefillChunk(lm.device());
  torch::Tensor last_hidden;
  for (std::int64_t start = 0; start < total; start += chunk) {
    const std::int64_t end = std::min(total, start + chunk);
    std::vector<std::int64_t> piece(ids.begin() + start, ids.begin() + end);
    ForwardContext context;
    context.mode = AttentionMode::Extend;
    context.state = &state;
    context.capture = options.capture;
    context.fast_weight_losses = options.fast_weight_losses;
    context.routing = options.routing;
    auto hidden = lm.forward(torch::tensor(piece, torch::kInt64).unsqueeze(0), context);
    last_hidden = hidden.select(1, hidden.size(1) - 1);  // [1, hidden]
    if (options.progress && !options.progress(end, total)) {
      throwError(ErrorKind::Cancelled, "", "prefill", "cancelled");
    }
  }
  return lm.logits(last_hidden)[0];
}

namespace {

// One token `id` [1, 1] int64 read at the state's next position: the logits [vocab] after it.
torch::Tensor stepOne(CausalLMImpl& lm, ModelState& state, const torch::Tensor& id,
                      ForwardCapture* capture = nullptr,
                      FastWeightLosses* fast_weight_losses = nullptr,
                      RoutingTrace* routing = nullptr) {
  torch::NoGradGuard no_grad;
  ForwardContext context;
  context.mode = AttentionMode::Extend;
  context.state = &state;
  context.capture = capture;
  context.fast_weight_losses = fast_weight_losses;
  context.routing = routing;
  auto hidden = lm.forward(id, context);  // [1, 1, hidden]
  return lm.logits(hidden[0][0]);
}

}  // namespace

torch::Tensor decodeStep(CausalLMImpl& lm, ModelState& state, std::int64_t token,
                         ForwardCapture* capture, FastWeightLosses* fast_weight_losses,
                         RoutingTrace* routing) {
  if (token < 0 || token >= lm.config().vocab_size) {
    throwArgument("token", std::to_string(token) + " is outside the vocabulary");
  }
  return stepOne(lm, state, torch::tensor({token}, torch::kInt64).unsqueeze(0), capture,
                 fast_weight_losses, routing);
}

torch::Tensor decodeStep(CausalLMImpl& lm, ModelState& state, const torch::Tensor& token) {
  if (token.scalar_type() != torch::kInt64 || token.numel() != 1) {
    throwArgument("token", "expected one int64 id");
  }
  return stepOne(lm, state, token.reshape({1, 1}).to(lm.device()));
}

}  // namespace studio::model

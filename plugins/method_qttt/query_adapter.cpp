#include "plugins/method_qttt/query_adapter.h"

#include <limits>

#include "core/common/error.h"

namespace studio::plugins {

using torch::Tensor;

QueryAdapter::QueryAdapter(model::CausalLMImpl& lm, const QueryAdapterOptions& options)
    : m_lm(lm), m_options(options) {
  std::vector<Tensor> initial;
  for (int i = 0; i < lm.numLayers(); ++i) {
    model::AttentionMixerImpl* attention = lm.attention(i);
    if (!attention) continue;
    m_layers.push_back(i);
    // A copy in fp32 (a bf16 W_Q would round away steps of 1e−6), never the weight itself.
    initial.push_back(attention->q_proj->weight.detach().to(torch::kFloat32));
  }
  if (initial.empty()) {
    throwArgument("method", "qTTT needs attention layers; this model has none");
  }
  m_optimizer = std::make_unique<FlatAdamW>(
      initial,
      torch::optim::AdamWOptions(options.learning_rate).weight_decay(options.weight_decay));
  install();
}

QueryAdapter::~QueryAdapter() {
  for (int i : m_layers) m_lm.attention(i)->q_weight_override = Tensor();
}

void QueryAdapter::install() {
  const std::vector<Tensor> weights = m_optimizer->castParameters(m_lm.dtype());
  for (std::size_t n = 0; n < m_layers.size(); ++n) {
    m_lm.attention(m_layers[n])->q_weight_override = weights[n];
  }
}

namespace {

// Throws Argument unless ids[start .. start+k] (the span and its next tokens) lie in the prompt.
void checkSpan(const std::vector<std::int64_t>& ids, std::int64_t start, std::int64_t k) {
  const auto total = static_cast<std::int64_t>(ids.size());
  if (k < 1 || start < 0 || start + k >= total) {
    throwArgument("span", "span [" + std::to_string(start) + ", " + std::to_string(start + k) +
                              "] needs its next tokens inside the " + std::to_string(total) +
                              "-token prompt");
  }
}

}  // namespace

Tensor QueryAdapter::spanLogits(model::ModelState& state, const std::vector<std::int64_t>& ids,
                                std::int64_t start, std::int64_t k) {
  checkSpan(ids, start, k);
  install();
  std::vector<std::int64_t> span(ids.begin() + start, ids.begin() + start + k);
  model::ForwardContext context;
  context.mode = model::AttentionMode::Frozen;
  context.state = &state;
  context.positions = torch::arange(start, start + k, torch::TensorOptions(torch::kInt64));
  Tensor hidden = m_lm.forward(torch::tensor(span, torch::kInt64).unsqueeze(0), context);
  return m_lm.logits(hidden[0]).to(torch::kFloat32);  // [k, vocab]
}

Tensor QueryAdapter::spanLoss(model::ModelState& state, const std::vector<std::int64_t>& ids,
                              std::int64_t start, std::int64_t k) {
  // The targets go to the device before the forward is queued: a copy from pageable memory waits
  // for the stream, and after the forward it would wait for all of it.
  checkSpan(ids, start, k);
  const std::vector<std::int64_t> next(ids.begin() + start + 1, ids.begin() + start + k + 1);
  const Tensor targets = torch::tensor(next, torch::kInt64).to(m_lm.device());  // [k]
  Tensor logits = spanLogits(state, ids, start, k);  // [k, vocab]
  return spanObjective(logits, targets);
}

Tensor QueryAdapter::spanObjective(const Tensor& logits, const Tensor& targets) const {
  namespace F = torch::nn::functional;
  auto options = F::CrossEntropyFuncOptions();
  if (m_options.sum_loss) {
    options.reduction(torch::kSum);
  } else {
    options.reduction(torch::kMean);
  }
  return F::cross_entropy(logits, targets, options);
}

SpanStepStats QueryAdapter::update(const Tensor& loss) {
  loss.backward();
  // Clipping to an infinite norm only measures it.
  const double clip = m_options.clip > 0 ? m_options.clip : std::numeric_limits<double>::infinity();
  const Tensor norm = m_optimizer->clipGradNorm(clip);
  m_optimizer->step();
  // Read back once everything is queued: one wait for the device a step, at its end.
  SpanStepStats stats;
  stats.loss = loss.item<double>();
  stats.grad_norm = norm.item<double>();
  return stats;
}

SpanStepStats QueryAdapter::step(model::ModelState& state, const std::vector<std::int64_t>& ids,
                                 std::int64_t start, std::int64_t k) {
  torch::AutoGradMode grad(true);
  m_optimizer->zeroGrad();
  return update(spanLoss(state, ids, start, k));
}

SpanStepStats QueryAdapter::stepFullContext(const std::vector<std::int64_t>& ids,
                                            std::int64_t start, std::int64_t k) {
  const auto total = static_cast<std::int64_t>(ids.size());
  if (k < 1 || start < 0 || start + k >= total) {
    throwArgument("span", "span out of the " + std::to_string(total) + "-token context");
  }
  torch::AutoGradMode grad(true);
  m_optimizer->zeroGrad();
  install();
  model::ForwardContext context;
  context.mode = model::AttentionMode::Full;
  const Tensor input = torch::tensor(ids, torch::kInt64).unsqueeze(0);            // [1, T]
  Tensor hidden = m_lm.forward(input, context);                                   // [1, T, d]
  Tensor logits = m_lm.logits(hidden[0].narrow(0, start, k)).to(torch::kFloat32);  // [k, vocab]
  Tensor targets = input[0].narrow(0, start + 1, k).to(logits.device());          // [k]
  return update(spanObjective(logits, targets));
}

Tensor QueryAdapter::frozenLogits(model::ModelState& state, std::int64_t token,
                                  std::int64_t position, model::ForwardCapture* capture) {
  torch::NoGradGuard no_grad;
  install();
  model::ForwardContext context;
  context.mode = model::AttentionMode::Frozen;
  context.state = &state;
  context.capture = capture;
  context.positions = torch::tensor({position}, torch::kInt64);
  Tensor hidden = m_lm.forward(torch::tensor({token}, torch::kInt64).unsqueeze(0), context);
  return m_lm.logits(hidden[0][0]);  // [vocab]
}

std::map<std::string, Tensor> QueryAdapter::adaptedTensors() const {
  torch::NoGradGuard no_grad;
  std::map<std::string, Tensor> tensors;
  for (const auto& item : m_lm.named_parameters()) {
    tensors[item.key()] = item.value().detach().cpu();
  }
  for (std::size_t n = 0; n < m_layers.size(); ++n) {
    const std::string name =
        "model.layers." + std::to_string(m_layers[n]) + ".self_attn.q_proj.weight";
    tensors[name] = masters()[n].detach().to(m_lm.dtype()).cpu();
  }
  return tensors;
}

}  // namespace studio::plugins

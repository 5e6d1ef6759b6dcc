#include "plugins/method_qttt/query_adapter.h"

#include <limits>

#include "core/common/error.h"
#include "core/model/captured_step.h"
#include "core/model/kernel_switches.h"

namespace studio::plugins {

using torch::Tensor;

// stepFromDevice's tensors: the span written into one device tensor a step (one copy, from
// pinned memory on CUDA), the graph that replays the step, and the step's results.
struct QueryAdapter::DeviceStep {
  DeviceStep(const torch::Device& device, const model::ModelState& state, std::int64_t k_in)
      : captured(device, /*eager_runs=*/2), cache_layout(state.kv().layout()), k(k_in) {
    staging_options = torch::TensorOptions(torch::kInt64);
    if (device.is_cuda()) staging_options = staging_options.pinned_memory(true);
    inputs = torch::empty({3 * k + 2}, torch::TensorOptions(torch::kInt64).device(device));
    query_bounds = torch::tensor({0, static_cast<int>(k)}, torch::kInt32).to(device);
  }

  model::CapturedStep captured;
  // What the graph was captured for: a step over a cache elsewhere in memory (another state, or
  // this one grown, truncated or forked since) or another span length is captured anew.
  std::vector<std::int64_t> cache_layout;
  std::int64_t k;
  // [3k + 2] int64: the span's ids, their positions, their next tokens (the targets), then
  // {0, p0 + k}, the cumulative key count of flash's variable-length kernel. Written on the host
  // into a staging tensor of these options (pinned on CUDA), then copied to `inputs`.
  torch::TensorOptions staging_options;
  Tensor inputs;  // on the model's device: what the step reads
  Tensor query_bounds;  // {0, k} int32 on the device
  Tensor loss, norm;    // the step's span loss and gradient norm (0-dim, on the device)
};

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

Tensor QueryAdapter::frozenSpanLogits(model::ModelState& state, const Tensor& ids,
                                      const Tensor& positions, const Tensor& query_bounds,
                                      const Tensor& key_bounds) {
  install();
  model::ForwardContext context;
  context.mode = model::AttentionMode::Frozen;
  context.state = &state;
  context.positions = positions;
  context.span_query_bounds = query_bounds;
  context.span_key_bounds = key_bounds;
  Tensor hidden = m_lm.forward(ids, context);
  return m_lm.logits(hidden[0]).to(torch::kFloat32);  // [k, vocab]
}

Tensor QueryAdapter::spanLogits(model::ModelState& state, const std::vector<std::int64_t>& ids,
                                std::int64_t start, std::int64_t k) {
  checkSpan(ids, start, k);
  std::vector<std::int64_t> span(ids.begin() + start, ids.begin() + start + k);
  return frozenSpanLogits(state, torch::tensor(span, torch::kInt64).unsqueeze(0),
                          torch::arange(start, start + k, torch::TensorOptions(torch::kInt64)));
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

Tensor QueryAdapter::queueUpdate(const Tensor& loss) {
  loss.backward();
  // Clipping to an infinite norm only measures it.
  const double clip = m_options.clip > 0 ? m_options.clip : std::numeric_limits<double>::infinity();
  const Tensor norm = m_optimizer->clipGradNorm(clip);
  m_optimizer->step();
  return norm;
}

SpanStepStats QueryAdapter::update(const Tensor& loss) {
  const Tensor norm = queueUpdate(loss);
  // Read back once everything is queued: one wait for the device a step, at its end.
  SpanStepStats stats;
  stats.loss = loss.item<double>();
  stats.grad_norm = norm.item<double>();
  return stats;
}

SpanStepStats QueryAdapter::step(model::ModelState& state, const std::vector<std::int64_t>& ids,
                                 std::int64_t start, std::int64_t k) {
  if (model::environmentSwitch("STUDIO_QTTT_GRAPH", "on")) {
    return stepFromDevice(state, ids, start, k);
  }
  torch::AutoGradMode grad(true);
  m_optimizer->zeroGrad();
  return update(spanLoss(state, ids, start, k));
}

SpanStepStats QueryAdapter::stepFromDevice(model::ModelState& state,
                                           const std::vector<std::int64_t>& ids,
                                           std::int64_t start, std::int64_t k) {
  checkSpan(ids, start, k);
  // The forward cannot check the positions it reads on the device: they are checked here.
  state.checkReaches(start + k - 1);
  if (!m_device_step || m_device_step->k != k ||
      m_device_step->cache_layout != state.kv().layout()) {
    m_device_step = std::make_unique<DeviceStep>(m_lm.device(), state, k);
  }
  DeviceStep& d = *m_device_step;
  // A new staging tensor every step: libtorch's caching host allocator hands a pinned block out
  // again only once the copies queued from it are done, so no step rewrites one still being
  // copied (after a step that threw, say, before it read its results back).
  const Tensor staging = torch::empty({3 * k + 2}, d.staging_options);
  auto* values = staging.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < k; ++i) {
    const auto at = static_cast<std::size_t>(start + i);
    values[i] = ids[at];
    values[k + i] = start + i;
    values[2 * k + i] = ids[at + 1];
  }
  values[3 * k] = 0;
  values[3 * k + 1] = start + k;
  d.captured.run([&] { d.inputs.copy_(staging, /*non_blocking=*/true); },
                 [&] {
                   torch::AutoGradMode grad(true);
                   m_optimizer->zeroGrad();
                   const Tensor logits = frozenSpanLogits(
                       state, d.inputs.narrow(0, 0, k).view({1, k}), d.inputs.narrow(0, k, k),
                       d.query_bounds, d.inputs.narrow(0, 3 * k, 2).to(torch::kInt32));
                   const Tensor loss = spanObjective(logits, d.inputs.narrow(0, 2 * k, k));
                   d.norm = queueUpdate(loss);
                   d.loss = loss.detach();
                 });
  SpanStepStats stats;
  stats.loss = d.loss.item<double>();
  stats.grad_norm = d.norm.item<double>();
  return stats;
}

std::int64_t QueryAdapter::graphReplays() const {
  return m_device_step ? m_device_step->captured.replays() : 0;
}

std::string QueryAdapter::graphFailure() const {
  return m_device_step ? m_device_step->captured.captureFailure() : std::string();
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

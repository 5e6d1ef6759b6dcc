#include "core/model/causality_check.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>

#include "core/common/error.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "core/model/routing_trace.h"

namespace studio::model {

using torch::Tensor;

namespace {

struct Pass {
  Tensor logits;  // [T, vocab]
  RoutingTrace routing;
};

// Every position's logits through one whole-sequence forward.
Pass forwardPass(CausalLMImpl& lm, const std::vector<std::int64_t>& ids) {
  Pass pass;
  ForwardContext context;
  context.routing = &pass.routing;
  const Tensor input = torch::tensor(ids, torch::kInt64).unsqueeze(0);
  pass.logits = lm.logits(lm.forward(input, context)).squeeze(0).to(torch::kCPU, torch::kFloat32);
  return pass;
}

// The same, one token at a time through the model state (decode).
Pass decodePass(CausalLMImpl& lm, const std::vector<std::int64_t>& ids) {
  Pass pass;
  ModelState state(lm.numLayers());
  std::vector<Tensor> rows;
  for (const std::int64_t id : ids) {
    rows.push_back(decodeStep(lm, state, id, nullptr, nullptr, &pass.routing)
                       .to(torch::kCPU, torch::kFloat32));
  }
  pass.logits = torch::stack(rows);
  return pass;
}

bool sameWindow(const RoutingTrace::Window& a, const RoutingTrace::Window& b) {
  return a.start == b.start && a.end == b.end && a.percentile_value == b.percentile_value &&
         a.tau == b.tau && a.losses == b.losses && a.routed == b.routed && a.evicted == b.evicted &&
         a.dropped == b.dropped && a.occupancy == b.occupancy;
}

// The earliest position before `n` at which the two traces disagree: a token's surprisal, or the
// first token of a window ending at or before n whose judgement differs.
void compareRouting(const RoutingTrace& a, const RoutingTrace& b, std::int64_t n, const char* path,
                    CausalityReport& report) {
  auto leak = [&](std::int64_t position, const char* quantity) {
    if (report.passed || position < report.first_leak) {
      report.passed = false;
      report.first_leak = position;
      report.path = path;
      report.quantity = quantity;
    }
  };
  if (a.layers.size() != b.layers.size()) {
    leak(0, "routing");
    return;
  }
  for (std::size_t l = 0; l < a.layers.size(); ++l) {
    const RoutingTrace::Layer& x = a.layers[l];
    const RoutingTrace::Layer& y = b.layers[l];
    for (std::size_t t = 0; t < x.positions.size() && x.positions[t] < n; ++t) {
      if (t >= y.losses.size() || x.losses[t] != y.losses[t]) {
        leak(x.positions[t], "loss");
        break;
      }
    }
    for (std::size_t w = 0; w < x.windows.size() && x.windows[w].end <= n; ++w) {
      ++report.windows_compared;
      if (w >= y.windows.size() || !sameWindow(x.windows[w], y.windows[w])) {
        leak(x.windows[w].start, "routing");
        break;
      }
    }
  }
}

}  // namespace

CausalityReport checkCausality(CausalLMImpl& lm, std::int64_t length, std::uint64_t seed) {
  if (length < 2) throwArgument("--length", "must be at least 2, got " + std::to_string(length));
  torch::NoGradGuard no_grad;
  const std::int64_t vocab = lm.config().vocab_size;
  at::Generator generator = at::detail::createCPUGenerator(seed);
  const Tensor drawn = torch::randint(vocab, {length}, generator, torch::kInt64);
  std::vector<std::int64_t> ids(drawn.data_ptr<std::int64_t>(),
                                drawn.data_ptr<std::int64_t>() + length);
  std::vector<std::int64_t> changed = ids;
  CausalityReport report;
  report.length = length;
  report.perturbed_from = length / 2;
  for (std::int64_t t = report.perturbed_from; t < length; ++t) {
    auto& id = changed[static_cast<std::size_t>(t)];
    id = (id + 1 + static_cast<std::int64_t>(seed % 7)) % vocab;
  }
  const std::int64_t n = report.perturbed_from;
  for (const char* path : {"forward", "decode"}) {
    const bool forward = std::string(path) == "forward";
    const Pass a = forward ? forwardPass(lm, ids) : decodePass(lm, ids);
    const Pass b = forward ? forwardPass(lm, changed) : decodePass(lm, changed);
    const Tensor before_a = a.logits.narrow(0, 0, n);
    const Tensor before_b = b.logits.narrow(0, 0, n);
    report.max_difference =
        std::max(report.max_difference, (before_a - before_b).abs().max().item<double>());
    for (std::int64_t t = 0; t < n && report.passed; ++t) {
      if (!torch::equal(before_a[t], before_b[t])) {
        report.passed = false;
        report.first_leak = t;
        report.path = path;
        report.quantity = "logits";
      }
    }
    if (report.passed) compareRouting(a.routing, b.routing, n, path, report);
  }
  return report;
}

}  // namespace studio::model

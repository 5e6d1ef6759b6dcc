#include "core/model/causality_check.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>

#include "core/common/error.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"

namespace studio::model {

using torch::Tensor;

namespace {

// [T, vocab] logits of every position of `ids` through one whole-sequence forward.
Tensor forwardLogits(CausalLMImpl& lm, const std::vector<std::int64_t>& ids) {
  ForwardContext context;
  const Tensor input = torch::tensor(ids, torch::kInt64).unsqueeze(0);
  return lm.logits(lm.forward(input, context)).squeeze(0).to(torch::kCPU, torch::kFloat32);
}

// The same, one token at a time through the model state (decode).
Tensor decodedLogits(CausalLMImpl& lm, const std::vector<std::int64_t>& ids) {
  ModelState state(lm.numLayers());
  std::vector<Tensor> rows;
  for (const std::int64_t id : ids) {
    rows.push_back(decodeStep(lm, state, id).to(torch::kCPU, torch::kFloat32));
  }
  return torch::stack(rows);
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
    const Tensor a = (forward ? forwardLogits(lm, ids) : decodedLogits(lm, ids)).narrow(0, 0, n);
    const Tensor b =
        (forward ? forwardLogits(lm, changed) : decodedLogits(lm, changed)).narrow(0, 0, n);
    report.max_difference =
        std::max(report.max_difference, (a - b).abs().max().item<double>());
    for (std::int64_t t = 0; t < n && report.passed; ++t) {
      if (!torch::equal(a[t], b[t])) {
        report.passed = false;
        report.first_leak = t;
        report.path = path;
      }
    }
  }
  return report;
}

}  // namespace studio::model

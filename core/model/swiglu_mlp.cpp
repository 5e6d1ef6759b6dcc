#include "core/model/swiglu_mlp.h"

#include "core/model/decode_linear.h"

namespace studio::model {

SwiGluMlpImpl::SwiGluMlpImpl(std::int64_t hidden, std::int64_t intermediate,
                             const torch::TensorOptions& options, const SwiGluNames& names,
                             GateActivation activation)
    : m_activation(activation) {
  gate_proj = register_module(names.gate, Linear(hidden, intermediate, false, options));
  up_proj = register_module(names.up, Linear(hidden, intermediate, false, options));
  down_proj = register_module(names.down, Linear(intermediate, hidden, false, options));
}

torch::Tensor SwiGluMlpImpl::forward(const torch::Tensor& x) {
  // A decode step's few rows on a GPU: the gate, the up projection, the activation and their
  // product in one kernel.
  if (auto gated = decodeGatedLinear(x, gate_proj->weight, up_proj->weight, m_activation)) {
    return down_proj->forward(*gated);
  }
  return down_proj->forward(activate(gate_proj->forward(x), m_activation) * up_proj->forward(x));
}

}  // namespace studio::model

#include "core/model/swiglu_mlp.h"

#include "core/common/error.h"

namespace studio::model {

GateActivation gateActivation(const std::string& name) {
  if (name == "silu" || name == "swish") return GateActivation::Silu;
  if (name == "gelu_pytorch_tanh") return GateActivation::GeluTanh;
  if (name == "gelu") return GateActivation::Gelu;
  throwError(ErrorKind::Unsupported, "config.json", "hidden_act",
             name + " is not supported (silu, gelu_pytorch_tanh or gelu)");
}

SwiGluMlpImpl::SwiGluMlpImpl(std::int64_t hidden, std::int64_t intermediate,
                             const torch::TensorOptions& options, const SwiGluNames& names,
                             GateActivation activation)
    : m_activation(activation) {
  gate_proj = register_module(names.gate, Linear(hidden, intermediate, false, options));
  up_proj = register_module(names.up, Linear(hidden, intermediate, false, options));
  down_proj = register_module(names.down, Linear(intermediate, hidden, false, options));
}

torch::Tensor SwiGluMlpImpl::forward(const torch::Tensor& x) {
  const torch::Tensor gate = gate_proj->forward(x);
  torch::Tensor activated;
  switch (m_activation) {
    case GateActivation::Silu: activated = torch::silu(gate); break;
    case GateActivation::GeluTanh: activated = torch::gelu(gate, "tanh"); break;
    case GateActivation::Gelu: activated = torch::gelu(gate); break;
  }
  return down_proj->forward(activated * up_proj->forward(x));
}

}  // namespace studio::model

#include "core/model/gate_activation.h"

#include "core/common/error.h"

namespace studio::model {

GateActivation gateActivation(const std::string& name) {
  if (name == "silu" || name == "swish") return GateActivation::Silu;
  if (name == "gelu_pytorch_tanh") return GateActivation::GeluTanh;
  if (name == "gelu") return GateActivation::Gelu;
  throwError(ErrorKind::Unsupported, "config.json", "hidden_act",
             name + " is not supported (silu, gelu_pytorch_tanh or gelu)");
}

torch::Tensor activate(const torch::Tensor& gate, GateActivation activation) {
  switch (activation) {
    case GateActivation::Silu: return torch::silu(gate);
    case GateActivation::GeluTanh: return torch::gelu(gate, "tanh");
    case GateActivation::Gelu: return torch::gelu(gate);
  }
  throwError(ErrorKind::Internal, "", "gate activation", "unknown activation");
}

}  // namespace studio::model

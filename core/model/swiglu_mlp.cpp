#include "core/model/swiglu_mlp.h"

namespace studio::model {

SwiGluMlpImpl::SwiGluMlpImpl(std::int64_t hidden, std::int64_t intermediate,
                             const torch::TensorOptions& options, const SwiGluNames& names) {
  gate_proj = register_module(names.gate, Linear(hidden, intermediate, false, options));
  up_proj = register_module(names.up, Linear(hidden, intermediate, false, options));
  down_proj = register_module(names.down, Linear(intermediate, hidden, false, options));
}

torch::Tensor SwiGluMlpImpl::forward(const torch::Tensor& x) {
  return down_proj->forward(torch::silu(gate_proj->forward(x)) * up_proj->forward(x));
}

}  // namespace studio::model

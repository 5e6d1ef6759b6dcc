#pragma once
// AdamW over parameters that live in one flat float32 buffer, with their gradients in another:
// qTTT's W_Q masters, one per attention layer. torch::optim::AdamW and clip_grad_norm_ launch
// 9 and about 2 ops per parameter (28 layers: about 310 kernels a step, a step bound by launching,
// docs/gpu.md); here each op is one launch over the whole buffer. The arithmetic is
// torch::optim::AdamW's, element by element, so on the CPU the parameters it writes are bit for
// bit the ones it would write given the same gradients (on CUDA they may differ in the last bits:
// step()). Its step count lives on the device, for steps replayed from a CUDA graph. Each
// parameter is a leaf viewing the flat buffer, its gradient preset to a view of the flat
// gradient. castParameters gives the model its copies of them in its dtype and adds their
// gradients to the flat gradient itself; where a parameter is used directly, autograd accumulates
// into the same views.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace studio::plugins {

class FlatAdamW {
 public:
  // Copies `initial` (float32, one device) into the flat buffer; the gradients start at zero.
  FlatAdamW(const std::vector<torch::Tensor>& initial, const torch::optim::AdamWOptions& options);

  // Leaves that require grad, shaped as `initial`, in its order.
  const std::vector<torch::Tensor>& parameters() const { return m_parameters; }
  // Every parameter cast to `type` with one launch, as `parameters()[i].to(type)` each would give
  // them; where grad mode is on, their gradients are added to the flat gradient with two (a cat
  // and the add) instead of two per parameter (the cast back and autograd's accumulation).
  std::vector<torch::Tensor> castParameters(torch::ScalarType type) const;

  // Zeroes every gradient (one fill).
  void zeroGrad();
  // The 2-norm of all gradients together (as clip_grad_norm_: the norm of the per-parameter
  // norms), a 0-dim float32 tensor on their device, not read back (so no wait for the device);
  // when max_norm is finite, scales them by min(1, max_norm / (norm + 1e−6)).
  torch::Tensor clipGradNorm(double max_norm);
  // One AdamW step from the current gradients.
  void step();

 private:
  torch::optim::AdamWOptions m_options;
  torch::Tensor m_values;     // [n] float32, every parameter end to end
  torch::Tensor m_gradients;  // [n]
  torch::Tensor m_exp_avg, m_exp_avg_sq;  // [n], AdamW's moments
  std::vector<torch::Tensor> m_parameters;
  torch::Tensor m_steps;  // 0-dim float64 on the parameters' device: the steps taken
  std::int64_t m_uniform_numel = 0;  // every parameter's size when all are equal, else 0
};

}  // namespace studio::plugins

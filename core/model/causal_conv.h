#pragma once
// The causal depthwise convolutions of ttt-lm-pytorch's Mamba backbone: nn.Conv1d(C, C, K,
// groups=C, padding=K−1) keeping the first T outputs, so output t reads inputs t−K+1 … t (zeros
// before the first token). In a ModelState the convolution keeps its recent inputs and continues
// across calls (decode).

#include <torch/torch.h>

#include "core/model/layers_basic.h"
#include "core/model/model_state.h"

namespace studio::model {

class CausalConvImpl : public torch::nn::Module {
 public:
  // `history_slack`: inputs kept beyond the kernel's K − 1, so the state can be truncated back.
  CausalConvImpl(std::int64_t channels, std::int64_t kernel, std::int64_t history_slack,
                 const torch::TensorOptions& options);

  // x: [B, T, C] -> [B, T, C]. `history` (null: the sequence starts here) holds the inputs
  // before x and receives x's.
  torch::Tensor forward(const torch::Tensor& x, ConvHistory* history);

  torch::Tensor weight;  // [C, 1, K]
  torch::Tensor bias;    // [C]

 private:
  std::int64_t m_kernel;
  std::int64_t m_keep;
};
TORCH_MODULE(CausalConv);

// ttt-lm-pytorch's Conv: the convolution of the RMS-normalised input, added to the residual
// stream before the layer's mixer.
class PreConvImpl : public torch::nn::Module {
 public:
  PreConvImpl(std::int64_t channels, std::int64_t kernel, std::int64_t history_slack, double eps,
              const torch::TensorOptions& options);
  torch::Tensor forward(const torch::Tensor& x, ConvHistory* history);  // [B, T, C]

  RMSNorm norm{nullptr};
  CausalConv conv{nullptr};
};
TORCH_MODULE(PreConv);

}  // namespace studio::model

#pragma once
// dQ of causal attention for span queries over frozen keys and values, on the CUDA kernel
// (kernels/span_attention_backward.cu). Built only where the kernels are (a CUDA libtorch and
// nvcc); elsewhere spanBackwardAvailable() is false and spanAttentionDq throws.

#include <torch/torch.h>

namespace studio::model {

// Whether the kernel exists in this build and takes these shapes (q [B,Hq,n,D], k [B,Hkv,S,D]).
bool spanBackwardAvailable(const torch::Tensor& q, const torch::Tensor& k);

// q, out, d_out: [B, Hq, n, D]; k, v: [B, Hkv, S, D]; lse: [B, Hq, n] (the forward's, of the
// scaled logits); positions: [n] int64, query i sees keys j ≤ positions[i] < S. Returns dq
// [B, Hq, n, D] in q's dtype: the gradient of Σ d_out · out with respect to q, k and v held fixed.
// Inputs are read in bf16 (the tensor cores' type), accumulation is float32.
torch::Tensor spanAttentionDq(const torch::Tensor& q, const torch::Tensor& k,
                              const torch::Tensor& v, const torch::Tensor& out,
                              const torch::Tensor& lse, const torch::Tensor& d_out,
                              const torch::Tensor& positions, double scale);

}  // namespace studio::model

#include "core/model/sr_ttt_linear.h"

#include "core/common/error.h"
#include "core/model/sr_ttt_config.h"

namespace studio::model {

using torch::Tensor;

SrTttLinearImpl::SrTttLinearImpl(const ModelConfig& config, std::shared_ptr<const Rotary> rotary,
                                 const torch::TensorOptions& options)
    : m_heads(config.num_attention_heads),
      m_head_dim(config.head_dim),
      m_update_chunk(config.sr_ttt.ttt_update_chunk),
      m_inner(at::promote_types(torch::typeMetaToScalarType(options.dtype()), torch::kFloat32)),
      m_rotary(std::move(rotary)) {
  const std::int64_t D = config.hidden_size, inner = m_heads * m_head_dim;
  W_q = register_module("W_q", Linear(D, inner, false, options));
  W_k = register_module("W_k", Linear(D, inner, false, options));
  W_v = register_module("W_v", Linear(D, inner, false, options));
  W_o = register_module("W_o", Linear(inner, D, false, options));
  W_fast_init = register_parameter("W_fast_init",
                                   torch::empty({m_heads, m_head_dim, m_head_dim}, options), false);
  ttt_lr = register_parameter("ttt_lr", torch::empty({m_heads}, options), false);
  layer_norm = register_module("layer_norm", LayerNorm(m_head_dim, kSrTttLayerNormEps, options));
}

SrTttLinearImpl::Output SrTttLinearImpl::forward(const Tensor& h, const Tensor& positions,
                                                 SrTttLayerState* state) {
  const auto B = h.size(0), T = h.size(1);
  const std::int64_t H = m_heads, Dh = m_head_dim;
  auto heads = [&](const Tensor& t) {  // [B, T, H·Dh] -> [B, H, T, Dh]
    return t.reshape({B, T, H, Dh}).transpose(1, 2);
  };
  const Tensor q = m_rotary->apply(heads(W_q->forward(h)), positions).to(m_inner);
  // The shared LayerNorm on the rotated keys and on the values (not on q).
  const Tensor k =
      layer_norm->forward(m_rotary->apply(heads(W_k->forward(h)), positions)).to(m_inner);
  const Tensor v = layer_norm->forward(heads(W_v->forward(h))).to(m_inner);
  // [1, H, 1, 1]: clamped inside the inner step's stable range; trained through the updates.
  const Tensor lr =
      ttt_lr.abs().clamp_max(1.0 / static_cast<double>(Dh)).to(m_inner).view({1, H, 1, 1});

  const bool continues = state && state->started();
  Tensor W = continues ? state->fast : W_fast_init.to(m_inner).unsqueeze(0).expand({B, H, Dh, Dh});
  bool W_is_initial = !continues;
  Tensor open_keys = state ? state->chunk_keys : Tensor();
  Tensor open_residuals = state ? state->chunk_residuals : Tensor();
  std::int64_t index = state ? state->openChunk() : 0;
  const std::int64_t first = positions[0].item<std::int64_t>();
  if (first % m_update_chunk != index) {
    throwError(ErrorKind::Internal, "", "SR-TTT layer",
               "position " + std::to_string(first) + " is not token " + std::to_string(index) +
                   " of its update chunk");
  }

  std::vector<Tensor> outputs, losses;
  for (std::int64_t t0 = 0; t0 < T;) {
    const std::int64_t n = std::min(m_update_chunk - index, T - t0);
    const Tensor q_c = q.narrow(2, t0, n);  // [B, H, n, Dh]
    const Tensor k_c = k.narrow(2, t0, n).detach();
    const Tensor v_c = v.narrow(2, t0, n).detach();
    // Output first, with the weights of the earlier chunks: o = W·q.
    outputs.push_back(torch::matmul(q_c, W.transpose(-1, -2)));
    const Tensor W_detached = W.detach();
    const Tensor residual = torch::matmul(k_c, W_detached.transpose(-1, -2)) - v_c;  // W·k − v
    losses.push_back(residual.pow(2).mean(-1).mean(1));                              // [B, n]
    open_keys = open_keys.defined() ? torch::cat({open_keys, k_c}, 2) : k_c;
    open_residuals =
        open_residuals.defined() ? torch::cat({open_residuals, residual}, 2) : residual;
    index += n;
    t0 += n;
    if (index == m_update_chunk) {
      // Then the update over the whole chunk: [B, H, Dh, Dh].
      const Tensor grad = (2.0 / static_cast<double>(m_update_chunk)) *
                          torch::matmul(open_residuals.transpose(-1, -2), open_keys);
      W = W_detached - lr * grad;
      W_is_initial = false;
      open_keys = Tensor();
      open_residuals = Tensor();
      index = 0;
    }
  }
  if (state) {
    // A view of W_fast_init would follow later changes of the parameter (training, full_ttt).
    state->fast = W_is_initial ? W.detach().clone() : W.detach();
    state->chunk_keys = open_keys;
    state->chunk_residuals = open_residuals;
  }

  // [B, H, T, Dh] -> [B, T, H·Dh], head-major as v2 concatenates
  const Tensor o = (outputs.size() == 1 ? outputs.front() : torch::cat(outputs, 2))
                       .transpose(1, 2)
                       .reshape({B, T, H * Dh})
                       .to(h.scalar_type());
  return {W_o->forward(o), losses.size() == 1 ? losses.front() : torch::cat(losses, 1)};
}

}  // namespace studio::model

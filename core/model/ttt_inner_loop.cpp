#include "core/model/ttt_inner_loop.h"

namespace studio::model {

using torch::Tensor;

namespace {

// Σ_j lr_j ∇_j of `tokens`, in FastWeights order: {Σ lr·X1ᵀG1 [B,H,d,e], Σ lr·G1 [B,H,1,e], ...}.
FastWeights accumulated(const OpenTokens& tokens) {
  FastWeights sums;
  const Tensor lr = tokens.lr.unsqueeze(-1);  // [B, H, n, 1]
  for (std::size_t l = 0; l < tokens.inputs.size(); ++l) {
    sums.push_back((lr * tokens.inputs[l]).transpose(-1, -2).matmul(tokens.grads[l]));
    sums.push_back((lr * tokens.grads[l]).sum(-2, /*keepdim=*/true));
  }
  return sums;
}

// x·W + b of one inner layer read through the dual form: W and b are the mini-batch's start
// weights, `acc_w`/`acc_b` what the open tokens accumulated (undefined: none), `keys` the inner
// layer's inputs of this mini-batch's new tokens [B,H,K,d] and `grads` their gradients [B,H,K,e];
// x [B,H,K,d] the rows read (queries, or keys for the losses).
//   Z̄_i = x_i·W − tok_i·x_i·Acc_W − Σ_{j≤i} tok_i·lr_j·(x_i·key_j)·G_j + b − tok_i·Acc_b − Σ_{j≤i} tok_i·lr_j·G_j
Tensor dualRead(const Tensor& x, const Tensor& W, const Tensor& b, const Tensor& acc_w,
                const Tensor& acc_b, const Tensor& keys, const Tensor& grads, const Tensor& eta,
                const Tensor& tok) {
  const Tensor attention = torch::tril(x.matmul(keys.transpose(-2, -1)));  // [B, H, K, K]
  Tensor b_bar = b - torch::tril(eta).matmul(grads);                      // [B, H, K, e]
  Tensor z = x.matmul(W) - (eta * attention).matmul(grads) + b_bar;
  if (acc_w.defined()) {
    const Tensor t = tok.view({-1, 1});  // [K, 1]
    z = z - t * x.matmul(acc_w) - t * acc_b;
  }
  return z;
}

// LN(z), or z itself for the plain inner loss.
Tensor normalized(const InnerModel& model, const Tensor& z) {
  return model.layer_norm ? tttLayerNorm(z, model.norm_weight, model.norm_bias) : z;
}

// ∂/∂z of ½‖LN(z) − target‖² (or of ½‖z − target‖²).
Tensor lossGradient(const InnerModel& model, const Tensor& z, const Tensor& target) {
  return model.layer_norm
             ? layerNormL2Gradient(z, target, model.norm_weight, model.norm_bias)
             : z - target;
}

// Per-token mean over f of (LN(z) − target)², averaged over heads: [B, K].
Tensor meanSquaredError(const InnerModel& model, const Tensor& z, const Tensor& target) {
  return (normalized(model, z) - target).pow(2).mean(-1).mean(1);
}

// The inner model's forward at the mini-batch's start weights, with the gradients of its loss.
struct KeyPass {
  std::vector<Tensor> inputs;  // per inner layer: X1 = k [, X2 = gelu(Z1)]
  std::vector<Tensor> grads;   // per inner layer: G1 [, G2]
  Tensor output;               // f(k; W_start) before the LayerNorm
};

KeyPass keyPass(const InnerModel& model, const FastWeights& w, const Tensor& k,
                const Tensor& target) {
  KeyPass pass;
  const Tensor z1 = k.matmul(w[0]) + w[1];  // [B, H, K, f or 4f]
  if (!model.mlp) {
    pass.inputs = {k};
    pass.grads = {lossGradient(model, z1, target)};
    pass.output = z1;
    return pass;
  }
  const Tensor x2 = geluTanh(z1);
  const Tensor z2 = x2.matmul(w[2]) + w[3];  // [B, H, K, f]
  const Tensor g2 = lossGradient(model, z2, target);
  const Tensor g1 = g2.matmul(w[2].transpose(-2, -1)) * geluTanhDerivative(z1);
  pass.inputs = {k, x2};
  pass.grads = {g1, g2};
  pass.output = z2;
  return pass;
}

// Weights minus tok·acc, inner layer by inner layer ([B,H,...] each; tok a 0-dim tensor).
FastWeights minusScaled(const FastWeights& start, const FastWeights& acc, const Tensor& tok) {
  FastWeights out;
  for (std::size_t i = 0; i < start.size(); ++i) out.push_back(start[i] - tok * acc[i]);
  return out;
}

// f(x; w) before the LayerNorm.
Tensor innerForward(const InnerModel& model, const FastWeights& w, const Tensor& x) {
  const Tensor z1 = x.matmul(w[0]) + w[1];
  if (!model.mlp) return z1;
  return geluTanh(z1).matmul(w[2]) + w[3];
}

}  // namespace

OpenTokens OpenTokens::concat(const OpenTokens& more) const {
  if (count() == 0) return more;
  if (more.count() == 0) return *this;
  OpenTokens out;
  out.lr = torch::cat({lr, more.lr}, 2);
  for (std::size_t l = 0; l < inputs.size(); ++l) {
    out.inputs.push_back(torch::cat({inputs[l], more.inputs[l]}, 2));
    out.grads.push_back(torch::cat({grads[l], more.grads[l]}, 2));
  }
  return out;
}

OpenTokens OpenTokens::first(std::int64_t n) const {
  if (n == 0) return {};
  OpenTokens out;
  out.lr = lr.narrow(2, 0, n);
  for (std::size_t l = 0; l < inputs.size(); ++l) {
    out.inputs.push_back(inputs[l].narrow(2, 0, n));
    out.grads.push_back(grads[l].narrow(2, 0, n));
  }
  return out;
}

Tensor tttLayerNorm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps) {
  const Tensor mu = x.mean(-1, /*keepdim=*/true);
  const Tensor var = x.var(-1, /*unbiased=*/false, /*keepdim=*/true);
  const Tensor std = torch::sqrt(var + eps);
  return weight * ((x - mu) / std) + bias;
}

Tensor layerNormL2Gradient(const Tensor& x, const Tensor& target, const Tensor& weight,
                           const Tensor& bias, double eps) {
  const double D = static_cast<double>(x.size(-1));
  const Tensor mu = x.mean(-1, true);
  const Tensor var = x.var(-1, false, true);
  const Tensor std = torch::sqrt(var + eps);
  const Tensor x_hat = (x - mu) / std;
  const Tensor y = weight * x_hat + bias;
  const Tensor grad_x_hat = (y - target) * weight;
  return (1.0 / D) *
         (D * grad_x_hat - grad_x_hat.sum(-1, true) - x_hat * (grad_x_hat * x_hat).sum(-1, true)) /
         std;
}

Tensor geluTanh(const Tensor& x) { return torch::gelu(x, "tanh"); }

Tensor geluTanhDerivative(const Tensor& x) {
  const Tensor tanh_out = torch::tanh(0.79788456 * x * (1 + 0.044715 * x * x));
  return 0.5 * x * ((1 - tanh_out * tanh_out) * (0.79788456 + 0.1070322243 * x * x)) +
         0.5 * (1 + tanh_out);
}

Tensor reconstructionError(const InnerModel& model, const FastWeights& w, const Tensor& k,
                           const Tensor& v) {
  return meanSquaredError(model, innerForward(model, w, k), v - k);
}

MiniBatchResult dualForm(const InnerModel& model, const FastWeights& start, const OpenTokens& open,
                         const MiniBatchInputs& in, bool losses) {
  const Tensor target = in.v - in.k;  // [B, H, K, f]
  const KeyPass pass = keyPass(model, start, in.k, target);
  // eta[i, j] = tok_i · lr_j: [B, H, K, K]
  const Tensor eta = in.token_factor.view({-1, 1}) * in.lr.unsqueeze(-2);
  FastWeights acc(start.size());
  if (open.count() > 0) acc = accumulated(open);

  auto read = [&](const Tensor& x) {
    Tensor z = dualRead(x, start[0], start[1], acc[0], acc[1], pass.inputs[0], pass.grads[0], eta,
                        in.token_factor);
    if (!model.mlp) return z;
    const Tensor x2 = geluTanh(z);
    return dualRead(x2, start[2], start[3], acc[2], acc[3], pass.inputs[1], pass.grads[1], eta,
                    in.token_factor);
  };

  MiniBatchResult result;
  result.output = in.q + normalized(model, read(in.q));
  result.tokens.lr = in.lr;
  result.tokens.inputs = pass.inputs;
  result.tokens.grads = pass.grads;
  if (losses) {
    torch::NoGradGuard no_grad;
    result.losses.before = meanSquaredError(model, pass.output, target);
    result.losses.after = meanSquaredError(model, read(in.k), target);
  }
  return result;
}

MiniBatchResult primalStep(const InnerModel& model, const FastWeights& start,
                           const OpenTokens& open, const MiniBatchInputs& in, bool losses) {
  const Tensor target = in.v - in.k;  // [B, H, 1, f]
  const KeyPass pass = keyPass(model, start, in.k, target);
  MiniBatchResult result;
  result.tokens.lr = in.lr;
  result.tokens.inputs = pass.inputs;
  result.tokens.grads = pass.grads;
  // W_t = W_start − tok_t · Σ_{j≤t} lr_j ∇_j, materialised.
  const FastWeights own = minusScaled(start, accumulated(open.concat(result.tokens)),
                                      in.token_factor.reshape({}));
  const Tensor z = innerForward(model, own, in.q);
  result.output = in.q + normalized(model, z);
  if (losses) {
    torch::NoGradGuard no_grad;
    result.losses.before = meanSquaredError(model, pass.output, target);
    result.losses.after = meanSquaredError(model, innerForward(model, own, in.k), target);
  }
  return result;
}

FastWeights closeMiniBatch(const FastWeights& start, const OpenTokens& tokens,
                           const Tensor& tok_last) {
  return minusScaled(start, accumulated(tokens), tok_last);
}

}  // namespace studio::model

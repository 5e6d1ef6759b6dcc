#!/usr/bin/python3
"""Writes the tiny TTT reference checkpoints of tests/fixtures/models/ttt-*/ and their expected logits.

An independent check of the engine's TTT forward pass. The checkpoints use the layout that the
public reference implementation (test-time-training/ttt-lm-pytorch, ttt.py: TTTConfig, TTTLinear,
TTTMLP, Block, TTTModel, TTTForCausalLM) saves, and the logits come from a plain float64 NumPy
re-derivation of that implementation's prefill (no cache, so the dual form is used for every
mini-batch, the shorter remainder included). The safetensors files are written by hand.

What the forward pass does (per layer):
  * pre_conv:   x += depthwise causal Conv1d(RMSNorm(x))
  * TTT layer:  x += TTT(RMSNorm(x)), where the TTT layer projects Q/K/V (with share_qk: one
                projection, then separate depthwise causal convs for Q and K), applies RoPE to Q and
                K at position (t mod mini_batch_size) on adjacent dimension pairs (the code permutes
                to the JAX layout, applies rotate-half RoPE, and permutes back), runs the inner
                loop (TTT-Linear: Z = XW + b; TTT-MLP: Z = gelu(XW1 + b1)W2 + b2, trained to map
                LayerNorm(Z(k)) onto v - k with learning rate eta[i, j] = token_i * lr_j), adds the
                query residual, applies post_norm, the optional gelu gate and o_proj
  * SwiGLU MLP: x += down(silu(gate(h)) * up(h)), h = RMSNorm(x)
then the final RMSNorm and lm_head (tied to the embeddings unless tie_word_embeddings is false).

reference.json also holds, per layer, the inner loop's reconstruction loss per token (the TTT
paper's Fig. 5 quantity) at the layer's learned initial weights, at the weights at the start of
the token's mini-batch, and at the token's own updated weights; the last is computed in the
primal form (per-token weights materialised), independently of the dual form used for the logits.
As a self-check the script also computes the logits in the primal form and asserts that both
forms agree.

Run with Debian's python3 and python3-numpy:  /usr/bin/python3 scripts/reference/make_ttt_reference_models.py
"""

import json
import math
import os
import struct
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fixtures", "models")

TTT_LN_EPS = 1e-6  # ln_fwd / ln_fused_l2_bwd defaults and post_norm's eps in ttt.py


# --- safetensors, written by hand (F32 only) ---------------------------------------------------

def write_safetensors(path, tensors):
    header = {}
    blobs = []
    offset = 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


# --- building blocks (float64) -----------------------------------------------------------------

def rms_norm(x, w, eps):
    var = np.mean(x * x, axis=-1, keepdims=True)
    return w * (x / np.sqrt(var + eps))


def layer_norm(x, gamma, beta, eps=TTT_LN_EPS):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)  # population variance
    return gamma * ((x - mu) / np.sqrt(var + eps)) + beta


def layer_norm_l2_grad(x, target, gamma, beta, eps=TTT_LN_EPS):
    """d/dx of 0.5 * ||LayerNorm(x) - target||^2, row by row."""
    d = x.shape[-1]
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)
    std = np.sqrt(var + eps)
    xhat = (x - mu) / std
    g = (gamma * xhat + beta - target) * gamma  # gradient w.r.t. xhat
    return (d * g - g.sum(-1, keepdims=True) - xhat * (g * xhat).sum(-1, keepdims=True)) / (d * std)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu_tanh_grad(x):
    # ttt.py's gelu_bwd, with its rounded constants (0.79788456 ~ sqrt(2/pi), 0.1070322243 ~ 3 *
    # 0.044715 * sqrt(2/pi)); the inner loop uses this, not the exact derivative of gelu_tanh.
    t = np.tanh(0.79788456 * x * (1.0 + 0.044715 * x * x))
    return 0.5 * x * ((1.0 - t * t) * (0.79788456 + 0.1070322243 * x * x)) + 0.5 * (1.0 + t)


def silu(x):
    return x / (1.0 + np.exp(-x))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def causal_depthwise_conv(x, weight, bias):
    """nn.Conv1d(C, C, K, groups=C, padding=K-1) over time, first L outputs. x: [L, C], weight: [C, 1, K]."""
    length = x.shape[0]
    k = weight.shape[-1]
    padded = np.concatenate([np.zeros((k - 1, x.shape[1])), x], axis=0)
    out = np.broadcast_to(bias, x.shape).copy()
    for i in range(k):
        out += weight[:, 0, i] * padded[i:i + length]
    return out


def rope_tables(head_dim, theta, positions):
    """cos/sin of shape [L, head_dim] as ttt.py's RotaryEmbedding builds them: the inverse
    frequencies, the angles and cos/sin are all float32 there (it casts inv_freq back to float32
    even for a float64 model), so round each step to float32 here too."""
    exponent = np.arange(0, head_dim, 2, dtype=np.int64).astype(np.float32) / np.float32(head_dim)
    inv = (np.float32(1.0) / (np.float32(theta) ** exponent)).astype(np.float32)
    freqs = (positions.astype(np.float32)[:, None] * inv[None, :]).astype(np.float32)
    emb = np.concatenate([freqs, freqs], axis=-1).astype(np.float64)
    cos = np.cos(emb).astype(np.float32).astype(np.float64)
    sin = np.sin(emb).astype(np.float32).astype(np.float64)
    return cos, sin


def rope_adjacent_pairs(x, cos, sin):
    """x: [heads, L, f]. Move the even dims to the first half and the odd dims to the second
    (permute_qk), apply rotate-half RoPE, move them back (undo_permute_qk): the net effect rotates
    each adjacent pair (2j, 2j+1) by the j-th frequency."""
    nh, length, f = x.shape
    y = x.reshape(nh, length, f // 2, 2).transpose(0, 1, 3, 2).reshape(nh, length, f)
    half = f // 2
    rotated = np.concatenate([-y[..., half:], y[..., :half]], axis=-1)
    y = y * cos[None] + rotated * sin[None]
    return y.reshape(nh, length, 2, f // 2).transpose(0, 1, 3, 2).reshape(nh, length, f)


# --- the TTT inner loop ------------------------------------------------------------------------
# Fast-weight state per head: linear {W1 [nh,f,f], b1 [nh,1,f]},
# mlp {W1 [nh,f,4f], b1 [nh,1,4f], W2 [nh,4f,f], b2 [nh,1,f]}.

def fast_forward(kind, state, x):
    """The fast model without the residual, x: [nh, n, f] -> [nh, n, f]."""
    if kind == "linear":
        return x @ state["W1"] + state["b1"]
    return gelu_tanh(x @ state["W1"] + state["b1"]) @ state["W2"] + state["b2"]


def reconstruction_loss(kind, state, k, v, lnw, lnb):
    """mean over dims of (LN(f(k)) - (v - k))^2, averaged over heads; k, v: [nh, n, f] -> [n]."""
    err = layer_norm(fast_forward(kind, state, k), lnw, lnb) - (v - k)
    return np.mean(err * err, axis=(0, 2))


def minibatch_grads(kind, state, xk, xv, lnw, lnb):
    """Per-token gradients of the inner loss at the mini-batch's starting weights, as ttt.py
    computes them: the gradients w.r.t. the pre-activations (and the activations they multiply)."""
    target = xv - xk
    if kind == "linear":
        z1 = xk @ state["W1"] + state["b1"]
        return {"x1": xk, "g1": layer_norm_l2_grad(z1, target, lnw, lnb)}
    z1 = xk @ state["W1"] + state["b1"]
    x2 = gelu_tanh(z1)
    z2 = x2 @ state["W2"] + state["b2"]
    g2 = layer_norm_l2_grad(z2, target, lnw, lnb)
    g1 = (g2 @ state["W2"].transpose(0, 2, 1)) * gelu_tanh_grad(z1)
    return {"x1": xk, "g1": g1, "x2": x2, "g2": g2}


def minibatch_dual(kind, state, xq, xk, xv, eta, lnw, lnb):
    """One mini-batch in the dual form; returns (output of the fast model for the queries before
    the residual and LayerNorm, the weights after the mini-batch). eta: [nh, K, K], eta[h,i,j] =
    token_i * lr_hj."""
    gr = minibatch_grads(kind, state, xk, xv, lnw, lnb)
    tril_eta = np.tril(eta)
    last = eta[:, -1, :, None]  # [nh, K, 1]: eta of the mini-batch's last token
    new = {}
    attn1 = np.tril(xq @ xk.transpose(0, 2, 1))
    b1_bar = state["b1"] - tril_eta @ gr["g1"]
    z1_bar = xq @ state["W1"] - (eta * attn1) @ gr["g1"] + b1_bar
    new["W1"] = state["W1"] - (last * gr["x1"]).transpose(0, 2, 1) @ gr["g1"]
    new["b1"] = state["b1"] - np.sum(last * gr["g1"], axis=1, keepdims=True)
    if kind == "linear":
        return z1_bar, new
    x2_bar = gelu_tanh(z1_bar)
    attn2 = np.tril(x2_bar @ gr["x2"].transpose(0, 2, 1))
    b2_bar = state["b2"] - tril_eta @ gr["g2"]
    z2_bar = x2_bar @ state["W2"] - (eta * attn2) @ gr["g2"] + b2_bar
    new["W2"] = state["W2"] - (last * gr["x2"]).transpose(0, 2, 1) @ gr["g2"]
    new["b2"] = state["b2"] - np.sum(last * gr["g2"], axis=1, keepdims=True)
    return z2_bar, new


def minibatch_primal(kind, state, xq, xk, xv, tok, lr, lnw, lnb):
    """One mini-batch in the primal form: every token's own weights
    W_i = W_start - tok_i * sum_{j<=i} lr_j * grad_j are built explicitly. Returns (fast-model
    output for the queries, the weights after the mini-batch, each token's loss at its own
    weights). tok: [K], lr: [nh, K]."""
    gr = minibatch_grads(kind, state, xk, xv, lnw, lnb)
    names = ["W1", "b1"] if kind == "linear" else ["W1", "b1", "W2", "b2"]
    acc = {n: np.zeros_like(state[n]) for n in names}
    outs, after = [], []
    token_state = state
    for i in range(xq.shape[1]):
        step = lr[:, i, None, None]  # [nh, 1, 1]
        acc["W1"] += step * (gr["x1"][:, i, :, None] * gr["g1"][:, i, None, :])
        acc["b1"] += step * gr["g1"][:, i, None, :]
        if kind == "mlp":
            acc["W2"] += step * (gr["x2"][:, i, :, None] * gr["g2"][:, i, None, :])
            acc["b2"] += step * gr["g2"][:, i, None, :]
        token_state = {n: state[n] - tok[i] * acc[n] for n in names}
        outs.append(fast_forward(kind, token_state, xq[:, i:i + 1]))
        after.append(reconstruction_loss(kind, token_state, xk[:, i:i + 1], xv[:, i:i + 1], lnw, lnb))
    return np.concatenate(outs, axis=1), token_state, np.concatenate(after)


def ttt_layer(cfg, w, p, h, form):
    """seq_modeling_block on h [L, width] (the seq_norm output). Returns (output [L, width],
    losses or None); losses are computed with form == "primal"."""
    length, width = h.shape
    nh = cfg["num_attention_heads"]
    f = width // nh
    mb = cfg["mini_batch_size"]
    kind = cfg.get("ttt_layer_type", cfg.get("ttt_block_type", "linear"))

    if cfg.get("share_qk", False):
        xq = h @ w[p + "q_proj.weight"].T
        XQ = causal_depthwise_conv(xq, w[p + "conv_q.weight"], w[p + "conv_q.bias"])
        XK = causal_depthwise_conv(xq, w[p + "conv_k.weight"], w[p + "conv_k.bias"])
    else:
        XQ = h @ w[p + "q_proj.weight"].T
        XK = h @ w[p + "k_proj.weight"].T
    XV = h @ w[p + "v_proj.weight"].T

    def heads(x):
        return x.reshape(length, nh, f).transpose(1, 0, 2)

    XQ, XK, XV = heads(XQ), heads(XK), heads(XV)
    cos, sin = rope_tables(f, cfg["rope_theta"], np.arange(length) % mb)
    XQ = rope_adjacent_pairs(XQ, cos, sin)
    XK = rope_adjacent_pairs(XK, cos, sin)

    # Per-head learning-rate gate on the layer input, and the per-position token factor.
    gate_w = w[p + "learnable_ttt_lr_weight"][:, 0, :]  # [nh, width]
    gate_b = w[p + "learnable_ttt_lr_bias"][:, 0]  # [nh]
    lr = cfg["ttt_base_lr"] * sigmoid(gate_w @ h.T + gate_b[:, None]) / f  # [nh, L]
    # The token_idx buffer holds float32(1 / (i + 1)).
    base_idx = (np.float32(1.0) / np.arange(1, mb + 1, dtype=np.float32)).astype(np.float64)
    token = np.maximum(base_idx + w[p + "learnable_token_idx"], 0.0)  # [mb]

    lnw = w[p + "ttt_norm_weight"][:, None, :]
    lnb = w[p + "ttt_norm_bias"][:, None, :]
    names = ["W1", "b1"] if kind == "linear" else ["W1", "b1", "W2", "b2"]
    params = {n: w[p + n] for n in names}
    state = dict(params)

    sizes = [mb] * (length // mb) + ([length % mb] if length % mb else [])
    outs = []
    losses = {"init": [], "before": [], "after": []} if form == "primal" else None
    start = 0
    for size in sizes:
        s = slice(start, start + size)
        xq, xk, xv = XQ[:, s], XK[:, s], XV[:, s]
        tok = token[:size]  # the remainder uses token_idx[0:size]
        if form == "dual":
            eta = tok[None, :, None] * lr[:, None, s]  # [nh, K, K]
            z, state = minibatch_dual(kind, state, xq, xk, xv, eta, lnw, lnb)
        else:
            losses["init"].append(reconstruction_loss(kind, params, xk, xv, lnw, lnb))
            losses["before"].append(reconstruction_loss(kind, state, xk, xv, lnw, lnb))
            z, state, after = minibatch_primal(kind, state, xq, xk, xv, tok, lr[:, s], lnw, lnb)
            losses["after"].append(after)
        outs.append(xq + layer_norm(z, lnw, lnb))
        start += size

    out = np.concatenate(outs, axis=1).transpose(1, 0, 2).reshape(length, width)
    out = layer_norm(out, w[p + "post_norm.weight"], w[p + "post_norm.bias"])
    if cfg.get("use_gate", False):
        out = gelu_tanh(h @ w[p + "g_proj.weight"].T) * out
    out = out @ w[p + "o_proj.weight"].T
    if losses is not None:
        losses = {k: np.concatenate(v) for k, v in losses.items()}
    return out, losses


def forward(cfg, w, ids, form="dual"):
    eps = cfg["rms_norm_eps"]
    x = w["model.embed_tokens.weight"][ids]
    layer_losses = []
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        if cfg.get("pre_conv", False):
            hn = rms_norm(x, w[p + "conv.norm.weight"], eps)
            x = x + causal_depthwise_conv(hn, w[p + "conv.conv.weight"], w[p + "conv.conv.bias"])
        hn = rms_norm(x, w[p + "seq_norm.weight"], eps)
        out, losses = ttt_layer(cfg, w, p + "seq_modeling_block.", hn, form)
        x = x + out
        layer_losses.append(losses)
        hn = rms_norm(x, w[p + "ffn_norm.weight"], eps)
        act = silu(hn @ w[p + "mlp.gate_proj.weight"].T) * (hn @ w[p + "mlp.up_proj.weight"].T)
        x = x + act @ w[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings", True) else w["lm_head.weight"]
    return x @ head.T, layer_losses


# --- the models --------------------------------------------------------------------------------

def token_idx_offsets(mb, rng):
    """learnable_token_idx: small random offsets, with two positions pushed below -1/(i+1) so the
    clamp at 0 is hit, while positions 0, 4 (the last of a 5-token remainder) and mb-1 (the last
    of a full mini-batch, whose eta row updates the carried weights) stay clearly positive."""
    base = 1.0 / np.arange(1, mb + 1)
    offsets = rng.normal(0, 0.04, mb)
    keep = {0, 4, mb - 1}
    clamped = {2, mb - 3}
    for i in range(mb):
        if i in clamped:
            offsets[i] = -base[i] - 0.05 - 0.1 * rng.random()
        elif i in keep and base[i] + offsets[i] < 0.5 * base[i]:
            offsets[i] = abs(offsets[i]) * 0.5
    return offsets


def make_weights(cfg, rng):
    V, Hd, I = cfg["vocab_size"], cfg["hidden_size"], cfg["intermediate_size"]
    nh = cfg["num_attention_heads"]
    f = Hd // nh
    mb = cfg["mini_batch_size"]
    K = cfg["conv_kernel"]
    kind = cfg.get("ttt_layer_type", cfg.get("ttt_block_type", "linear"))
    share_qk = cfg.get("share_qk", False)
    # In the order TTTForCausalLM.state_dict() lists them.
    w = {"model.embed_tokens.weight": rng.normal(0, 0.5, (V, Hd))}
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        s = p + "seq_modeling_block."
        # Parameters registered on the TTT layer itself come before its submodules.
        w[s + "learnable_token_idx"] = token_idx_offsets(mb, rng)
        w[s + "learnable_ttt_lr_weight"] = rng.normal(0, 0.15, (nh, 1, Hd))
        w[s + "learnable_ttt_lr_bias"] = rng.normal(0, 0.5, (nh, 1))
        w[s + "ttt_norm_weight"] = 1 + rng.normal(0, 0.1, (nh, f))
        w[s + "ttt_norm_bias"] = rng.normal(0, 0.1, (nh, f))
        if kind == "linear":
            w[s + "W1"] = rng.normal(0, 0.3, (nh, f, f))
            w[s + "b1"] = rng.normal(0, 0.1, (nh, 1, f))
        else:
            w[s + "W1"] = rng.normal(0, 0.3, (nh, f, 4 * f))
            w[s + "b1"] = rng.normal(0, 0.1, (nh, 1, 4 * f))
            w[s + "W2"] = rng.normal(0, 0.3, (nh, 4 * f, f))
            w[s + "b2"] = rng.normal(0, 0.1, (nh, 1, f))
        w[s + "q_proj.weight"] = rng.normal(0, 0.2, (Hd, Hd))
        if not share_qk:
            w[s + "k_proj.weight"] = rng.normal(0, 0.2, (Hd, Hd))
        w[s + "v_proj.weight"] = rng.normal(0, 0.2, (Hd, Hd))
        w[s + "o_proj.weight"] = rng.normal(0, 0.2, (Hd, Hd))
        if share_qk:
            w[s + "conv_q.weight"] = rng.normal(0, 0.4, (Hd, 1, K))
            w[s + "conv_q.bias"] = rng.normal(0, 0.1, Hd)
            w[s + "conv_k.weight"] = rng.normal(0, 0.4, (Hd, 1, K))
            w[s + "conv_k.bias"] = rng.normal(0, 0.1, Hd)
        if cfg.get("use_gate", False):
            w[s + "g_proj.weight"] = rng.normal(0, 0.3, (Hd, Hd))
        w[s + "post_norm.weight"] = 1 + rng.normal(0, 0.1, Hd)
        w[s + "post_norm.bias"] = rng.normal(0, 0.1, Hd)
        w[p + "mlp.gate_proj.weight"] = rng.normal(0, 0.2, (I, Hd))
        w[p + "mlp.up_proj.weight"] = rng.normal(0, 0.2, (I, Hd))
        w[p + "mlp.down_proj.weight"] = rng.normal(0, 0.2, (Hd, I))
        if cfg.get("pre_conv", False):
            w[p + "conv.norm.weight"] = 1 + rng.normal(0, 0.1, Hd)
            w[p + "conv.conv.weight"] = rng.normal(0, 0.4, (Hd, 1, K))
            w[p + "conv.conv.bias"] = rng.normal(0, 0.1, Hd)
        w[p + "seq_norm.weight"] = 1 + rng.normal(0, 0.1, Hd)
        w[p + "ffn_norm.weight"] = 1 + rng.normal(0, 0.1, Hd)
    w["model.norm.weight"] = 1 + rng.normal(0, 0.1, Hd)
    if not cfg.get("tie_word_embeddings", True):
        w["lm_head.weight"] = rng.normal(0, 0.3, (V, Hd))
    # The stored weights are float32: compute the reference from exactly those values.
    return {k: np.asarray(v).astype(np.float32) for k, v in w.items()}


BASE = {
    "model_type": "ttt", "architectures": ["TTTForCausalLM"],
    "vocab_size": 97, "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
    "num_attention_heads": 4, "hidden_act": "silu", "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
    "max_position_embeddings": 256, "pretraining_tp": 1, "use_cache": False,
    "bos_token_id": 0, "eos_token_id": 1, "torch_dtype": "float32",
    "use_gate": False, "share_qk": False, "pre_conv": False, "conv_kernel": 4,
    "scan_checkpoint_group_size": 0,
}

MODELS = {
    # TTT-Linear, tied embeddings, plain backbone.
    "ttt-linear-tiny": dict(BASE, ttt_layer_type="linear", mini_batch_size=16, tie_word_embeddings=True,
                            ttt_base_lr=1.0),
    # TTT-MLP with a separate lm_head.
    "ttt-mlp-tiny": dict(BASE, ttt_layer_type="mlp", mini_batch_size=16, tie_word_embeddings=False,
                         ttt_base_lr=0.1),
    # TTT-Linear on the Mamba backbone (pre-conv, gate, shared Q/K with convs), configured with
    # the older key ttt_block_type.
    "ttt-linear-mamba-tiny": dict(BASE, ttt_block_type="linear", mini_batch_size=8, tie_word_embeddings=True,
                                  ttt_base_lr=1.0, pre_conv=True, conv_kernel=4, use_gate=True,
                                  share_qk=True),
    # TTT-MLP with the output gate, separate lm_head.
    "ttt-mlp-gate-tiny": dict(BASE, ttt_layer_type="mlp", mini_batch_size=8, tie_word_embeddings=False,
                              ttt_base_lr=0.1, use_gate=True, share_qk=False, pre_conv=False),
}


def main():
    rng = np.random.default_rng(20260611)
    worst = 0.0
    for name, cfg in MODELS.items():
        folder = os.path.join(OUT, name)
        os.makedirs(folder, exist_ok=True)
        w = make_weights(cfg, rng)
        mb = cfg["mini_batch_size"]
        ids_all = [int(i) for i in rng.integers(0, cfg["vocab_size"], 2 * mb + 5)]
        # Two full mini-batches; two full ones and a remainder of 5; a lone remainder of 5; one token.
        lengths = [2 * mb, 2 * mb + 5, 5, 1]
        write_safetensors(os.path.join(folder, "model.safetensors"), w)
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
        used = {k: v.astype(np.float64) for k, v in w.items()}
        no_update = dict(cfg, ttt_base_lr=0.0)
        cases = []
        for length in lengths:
            ids = ids_all[:length]
            logits, _ = forward(cfg, used, ids, "dual")
            primal, losses = forward(cfg, used, ids, "primal")
            diff = float(np.abs(logits - primal).max())
            assert diff < 1e-9, (name, length, diff)
            worst = max(worst, diff)
            frozen, _ = forward(no_update, used, ids, "dual")
            effect = float(np.abs(logits - frozen).max())
            cases.append({
                "ids": ids,
                "logits": [[float(x) for x in row] for row in logits],
                "fast_weight_loss": [{"layer": i, **{k: [float(x) for x in v] for k, v in l.items()}}
                                     for i, l in enumerate(losses)],
            })
            means = " ".join(f"L{i}: init {l['init'].mean():.4f} before {l['before'].mean():.4f} "
                             f"after {l['after'].mean():.4f}" for i, l in enumerate(losses))
            print(f"{name} T={length:3d} max |logit| {float(np.abs(logits).max()):.4f}  "
                  f"|dual - primal| {diff:.2e}  |with - without inner loop| {effect:.4f}  {means}")
        with open(os.path.join(folder, "reference.json"), "w") as f:
            json.dump({"cases": cases}, f)
    print("max |dual - primal| over all models and cases:", worst)


if __name__ == "__main__":
    sys.exit(main())

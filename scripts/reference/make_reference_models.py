#!/usr/bin/python3
"""Writes the tiny reference checkpoints of tests/fixtures/models/ and their expected logits.

An independent check of the engine's forward pass: this script writes safetensors files by hand
(not with the studio's writer) and computes logits with a plain float64 NumPy transcription of
Hugging Face transformers' Qwen3, Qwen2, Llama, Mistral, Phi-3 and Gemma 1/2/3 modelling code
(RMSNorm, rotate-half RoPE with the linear, llama3 and yarn scalings, GQA via repeat_kv, Qwen3's
q/k norm, SwiGLU, the sliding-window mask of Mistral and of Qwen2's use_sliding_window, Phi-3's
fused qkv_proj and gate_up_proj; Gemma's (1 + w) norms, GeGLU, embedding scale, sandwich norms,
query_pre_attn_scalar, soft-capping, local and global layers with their own RoPE bases). The C++
tests load the folders through the engine and compare their logits with reference.json.

Run with Debian's python3 and python3-numpy:  /usr/bin/python3 scripts/reference/make_reference_models.py
"""

import json
import math
import os
import struct
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fixtures", "models")


# --- safetensors, written by hand -------------------------------------------------------------

def to_bf16_bytes(a):
    """float32 -> bfloat16 with round-to-nearest-even, as torch does."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounding = ((bits >> 16) & 1) + 0x7FFF
    return ((bits + rounding) >> 16).astype(np.uint16).tobytes()


def from_bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounding = ((bits >> 16) & 1) + 0x7FFF
    rounded = (((bits + rounding) >> 16) << 16).astype(np.uint32)
    return rounded.view(np.float32)


def write_safetensors(path, tensors, dtype):
    header = {}
    blobs = []
    offset = 0
    for name, array in tensors.items():
        if dtype == "BF16":
            data = to_bf16_bytes(array)
        else:
            data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
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


# --- the reference forward pass (float64) ------------------------------------------------------

def rms_norm(x, w, eps):
    var = np.mean(x * x, axis=-1, keepdims=True)
    return w * (x / np.sqrt(var + eps))


def is_gemma(cfg):
    return cfg["model_type"] in ("gemma", "gemma2", "gemma3_text")


def norm(cfg, x, w, eps):
    """Gemma's RMSNorm scales by (1 + w); the others by w."""
    return rms_norm(x, 1 + w if is_gemma(cfg) else w, eps)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def sliding_layers(cfg):
    """Which layers see only the last sliding_window keys (transformers' layer_types)."""
    L = cfg["num_hidden_layers"]
    if "layer_types" in cfg:
        return [t == "sliding_attention" for t in cfg["layer_types"]]
    if cfg["model_type"] == "gemma2":
        return [i % 2 == 0 for i in range(L)]
    if cfg["model_type"] == "gemma3_text":
        pattern = cfg.get("sliding_window_pattern", 6)
        return [(i + 1) % pattern != 0 for i in range(L)]
    if cfg["model_type"] in ("qwen2", "qwen3"):
        # Qwen2Config: the layers from max_window_layers on, when use_sliding_window.
        window = cfg.get("sliding_window", 4096) if cfg.get("use_sliding_window") else None
        return [window is not None and i >= cfg.get("max_window_layers", 28) for i in range(L)]
    return [bool(cfg.get("sliding_window")) and cfg["model_type"] in ("mistral", "phi3")] * L


def softcap(x, cap):
    return x if not cap else cap * np.tanh(x / cap)


def head_dim_of(cfg):
    """transformers derives head_dim from hidden_size when the config says null or nothing."""
    return cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]


def inv_freq_of(cfg):
    dim = head_dim_of(cfg)
    base = cfg["rope_theta"]
    # transformers computes these in float32
    inv = (1.0 / (np.float32(base) ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / np.float32(dim)))).astype(np.float32)
    scaling = cfg.get("rope_scaling")
    attention_factor = 1.0
    if scaling:
        kind = scaling.get("rope_type", scaling.get("type"))
        factor = scaling["factor"]
        if kind == "linear":
            inv = (inv / np.float32(factor)).astype(np.float32)
        elif kind == "llama3":
            low, high = scaling["low_freq_factor"], scaling["high_freq_factor"]
            old = scaling["original_max_position_embeddings"]
            low_wavelen = old / low
            high_wavelen = old / high
            wavelen = 2 * math.pi / inv
            scaled = np.where(wavelen > low_wavelen, inv / factor, inv)
            smooth = (old / wavelen - low) / (high - low)
            smoothed = (1 - smooth) * scaled / factor + smooth * scaled
            medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
            inv = np.where(medium, smoothed, scaled).astype(np.float32)
        elif kind == "yarn":
            original = scaling.get("original_max_position_embeddings", cfg["max_position_embeddings"])
            beta_fast = scaling.get("beta_fast", 32)
            beta_slow = scaling.get("beta_slow", 1)

            def correction_dim(rot):
                return (dim * math.log(original / (rot * 2 * math.pi))) / (2 * math.log(base))

            lo = max(math.floor(correction_dim(beta_fast)), 0)
            hi = min(math.ceil(correction_dim(beta_slow)), dim - 1)
            if lo == hi:
                hi += 0.001
            pos_freqs = np.float32(base) ** (np.arange(0, dim, 2).astype(np.float32) / np.float32(dim))
            extrap = 1.0 / pos_freqs
            interp = 1.0 / (factor * pos_freqs)
            ramp = np.clip((np.arange(dim // 2, dtype=np.float32) - lo) / (hi - lo), 0, 1)
            extrap_factor = 1 - ramp
            inv = (interp * (1 - extrap_factor) + extrap * extrap_factor).astype(np.float32)
            attention_factor = scaling.get("attention_factor") or (0.1 * math.log(factor) + 1.0)
        else:
            raise ValueError(kind)
    return inv.astype(np.float64), attention_factor


def rope(x, positions, inv, attention_factor):
    # x: [heads, T, D]. cos and sin in float32, as transformers' rotary embeddings compute them
    # (autocast off, float32 whatever the model's dtype), then applied in float64.
    freqs = positions[:, None].astype(np.float32) * inv.astype(np.float32)[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos = (np.cos(emb) * np.float32(attention_factor)).astype(np.float64)
    sin = (np.sin(emb) * np.float32(attention_factor)).astype(np.float64)
    half = x.shape[-1] // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin


def unfused(cfg, w):
    """Phi-3's fused projections sliced as Phi3Attention and Phi3MLP slice their outputs."""
    if cfg["model_type"] != "phi3":
        return w
    q_rows = cfg["num_attention_heads"] * head_dim_of(cfg)
    kv_rows = cfg["num_key_value_heads"] * head_dim_of(cfg)
    out = dict(w)
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        qkv = out.pop(p + "self_attn.qkv_proj.weight")
        out[p + "self_attn.q_proj.weight"] = qkv[:q_rows]
        out[p + "self_attn.k_proj.weight"] = qkv[q_rows:q_rows + kv_rows]
        out[p + "self_attn.v_proj.weight"] = qkv[q_rows + kv_rows:]
        gate_up = out.pop(p + "mlp.gate_up_proj.weight")
        out[p + "mlp.gate_proj.weight"], out[p + "mlp.up_proj.weight"] = np.split(gate_up, 2, axis=0)
    return out


def forward(cfg, w, ids):
    w = unfused(cfg, w)
    T = len(ids)
    H = cfg["num_attention_heads"]
    KV = cfg["num_key_value_heads"]
    D = head_dim_of(cfg)
    eps = cfg["rms_norm_eps"]
    gemma = is_gemma(cfg)
    sandwich = cfg["model_type"] in ("gemma2", "gemma3_text")
    qk_norm = cfg["model_type"] in ("qwen3", "gemma3_text")
    bias = cfg["model_type"] == "qwen2" or cfg.get("attention_bias", False)
    inv, attention_factor = inv_freq_of(cfg)
    if cfg["model_type"] == "gemma3_text":
        # The sliding layers rotate with rope_local_base_freq and no scaling.
        local_inv, local_factor = inv_freq_of(dict(cfg, rope_theta=cfg["rope_local_base_freq"],
                                                   rope_scaling=None))
    else:
        local_inv, local_factor = inv, attention_factor
    scale = cfg.get("query_pre_attn_scalar", D) ** -0.5 if sandwich else 1 / math.sqrt(D)
    sliding = sliding_layers(cfg)
    positions = np.arange(T)
    x = w["model.embed_tokens.weight"][ids]
    if gemma:
        x = x * math.sqrt(cfg["hidden_size"])  # float32 weights: √hidden rounds to float32 only
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        h = norm(cfg, x, w[p + "input_layernorm.weight"], eps)
        q = h @ w[p + "self_attn.q_proj.weight"].T
        k = h @ w[p + "self_attn.k_proj.weight"].T
        v = h @ w[p + "self_attn.v_proj.weight"].T
        if bias:
            q = q + w[p + "self_attn.q_proj.bias"]
            k = k + w[p + "self_attn.k_proj.bias"]
            v = v + w[p + "self_attn.v_proj.bias"]
        q = q.reshape(T, H, D)
        k = k.reshape(T, KV, D)
        v = v.reshape(T, KV, D)
        if qk_norm:
            q = norm(cfg, q, w[p + "self_attn.q_norm.weight"], eps)
            k = norm(cfg, k, w[p + "self_attn.k_norm.weight"], eps)
        layer_inv, layer_factor = (local_inv, local_factor) if sliding[layer] else (inv, attention_factor)
        q = rope(q.transpose(1, 0, 2), positions, layer_inv, layer_factor)
        k = rope(k.transpose(1, 0, 2), positions, layer_inv, layer_factor)
        v = v.transpose(1, 0, 2)
        groups = H // KV
        k = np.repeat(k, groups, axis=0)  # repeat_kv
        v = np.repeat(v, groups, axis=0)
        scores = softcap(q @ k.transpose(0, 2, 1) * scale, cfg.get("attn_logit_softcapping"))
        mask = np.triu(np.ones((T, T), dtype=bool), 1)
        if sliding[layer]:
            # transformers' sliding-window mask: query i sees key j when i - window < j <= i
            mask |= np.tril(np.ones((T, T), dtype=bool), -cfg["sliding_window"])
        scores = np.where(mask[None], -np.inf, scores)
        scores = scores - scores.max(-1, keepdims=True)
        probs = np.exp(scores)
        probs = probs / probs.sum(-1, keepdims=True)
        attn = (probs @ v).transpose(1, 0, 2).reshape(T, H * D)
        attn = attn @ w[p + "self_attn.o_proj.weight"].T
        if sandwich:
            attn = norm(cfg, attn, w[p + "post_attention_layernorm.weight"], eps)
            h = norm(cfg, x + attn, w[p + "pre_feedforward_layernorm.weight"], eps)
        else:
            h = norm(cfg, x + attn, w[p + "post_attention_layernorm.weight"], eps)
        x = x + attn
        gate = h @ w[p + "mlp.gate_proj.weight"].T
        up = h @ w[p + "mlp.up_proj.weight"].T
        act = gelu_tanh(gate) if gemma else gate / (1 + np.exp(-gate))
        mlp = (act * up) @ w[p + "mlp.down_proj.weight"].T
        if sandwich:
            mlp = norm(cfg, mlp, w[p + "post_feedforward_layernorm.weight"], eps)
        x = x + mlp
    x = norm(cfg, x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w["lm_head.weight"]
    return softcap(x @ head.T, cfg.get("final_logit_softcapping"))


# --- the models --------------------------------------------------------------------------------

def make_weights(cfg, rng):
    V, Hd, I = cfg["vocab_size"], cfg["hidden_size"], cfg["intermediate_size"]
    H, KV, D = cfg["num_attention_heads"], cfg["num_key_value_heads"], head_dim_of(cfg)
    bias = cfg["model_type"] == "qwen2" or cfg.get("attention_bias", False)
    w = {"model.embed_tokens.weight": rng.normal(0, 0.5, (V, Hd))}
    # Gemma stores its norms' offsets from 1 (its RMSNorm scales by 1 + w): the same scales.
    one = 0 if is_gemma(cfg) else 1
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        w[p + "input_layernorm.weight"] = one + rng.normal(0, 0.1, Hd)
        w[p + "post_attention_layernorm.weight"] = one + rng.normal(0, 0.1, Hd)
        if cfg["model_type"] in ("gemma2", "gemma3_text"):
            w[p + "pre_feedforward_layernorm.weight"] = rng.normal(0, 0.3, Hd)
            w[p + "post_feedforward_layernorm.weight"] = rng.normal(0, 0.3, Hd)
        w[p + "self_attn.q_proj.weight"] = rng.normal(0, 0.3, (H * D, Hd))
        w[p + "self_attn.k_proj.weight"] = rng.normal(0, 0.3, (KV * D, Hd))
        w[p + "self_attn.v_proj.weight"] = rng.normal(0, 0.3, (KV * D, Hd))
        w[p + "self_attn.o_proj.weight"] = rng.normal(0, 0.3, (Hd, H * D))
        if bias:
            w[p + "self_attn.q_proj.bias"] = rng.normal(0, 0.1, H * D)
            w[p + "self_attn.k_proj.bias"] = rng.normal(0, 0.1, KV * D)
            w[p + "self_attn.v_proj.bias"] = rng.normal(0, 0.1, KV * D)
        if cfg["model_type"] in ("qwen3", "gemma3_text"):
            w[p + "self_attn.q_norm.weight"] = one + rng.normal(0, 0.1, D)
            w[p + "self_attn.k_norm.weight"] = one + rng.normal(0, 0.1, D)
        w[p + "mlp.gate_proj.weight"] = rng.normal(0, 0.3, (I, Hd))
        w[p + "mlp.up_proj.weight"] = rng.normal(0, 0.3, (I, Hd))
        w[p + "mlp.down_proj.weight"] = rng.normal(0, 0.3, (Hd, I))
    w["model.norm.weight"] = one + rng.normal(0, 0.1, Hd)
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = rng.normal(0, 0.3, (V, Hd))
    if cfg["model_type"] == "phi3":
        # Phi-3 stores q, k, v and gate, up fused (rows in that order).
        for layer in range(cfg["num_hidden_layers"]):
            p = f"model.layers.{layer}."
            w[p + "self_attn.qkv_proj.weight"] = np.concatenate(
                [w.pop(p + f"self_attn.{x}_proj.weight") for x in "qkv"], axis=0)
            w[p + "mlp.gate_up_proj.weight"] = np.concatenate(
                [w.pop(p + "mlp.gate_proj.weight"), w.pop(p + "mlp.up_proj.weight")], axis=0)
    # The stored weights are float32: compute the reference from exactly those values.
    return {k: v.astype(np.float32) for k, v in w.items()}


BASE = {
    "vocab_size": 97, "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
    "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "max_position_embeddings": 256,
    "hidden_act": "silu", "torch_dtype": "float32", "eos_token_id": 1, "bos_token_id": 0,
}

MODELS = {
    # Qwen3: q/k norm, tied embeddings, head_dim·heads ≠ hidden, GQA, RoPE theta 1e6.
    "qwen3-tiny": dict(BASE, model_type="qwen3", architectures=["Qwen3ForCausalLM"],
                       head_dim=12, rope_theta=1000000.0, tie_word_embeddings=True,
                       attention_bias=False),
    # The same architecture stored in bfloat16.
    "qwen3-tiny-bf16": dict(BASE, model_type="qwen3", architectures=["Qwen3ForCausalLM"],
                            head_dim=12, rope_theta=1000000.0, tie_word_embeddings=True,
                            attention_bias=False, torch_dtype="bfloat16"),
    # Qwen2: q/k/v biases, separate lm_head, MHA-equivalent GQA of 1 group... use 2 groups.
    "qwen2-tiny": dict(BASE, model_type="qwen2", architectures=["Qwen2ForCausalLM"],
                       tie_word_embeddings=False),
    # Llama 3 with llama3 rope scaling.
    "llama3-tiny": dict(BASE, model_type="llama", architectures=["LlamaForCausalLM"],
                        tie_word_embeddings=False, rope_theta=500000.0,
                        rope_scaling={"rope_type": "llama3", "factor": 8.0,
                                      "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                      "original_max_position_embeddings": 64}),
    "llama-linear-tiny": dict(BASE, model_type="llama", architectures=["LlamaForCausalLM"],
                              tie_word_embeddings=True,
                              rope_scaling={"type": "linear", "factor": 4.0}),
    "qwen2-yarn-tiny": dict(BASE, model_type="qwen2", architectures=["Qwen2ForCausalLM"],
                            tie_word_embeddings=True,
                            rope_scaling={"type": "yarn", "factor": 4.0,
                                          "original_max_position_embeddings": 64}),
    # Mistral: Llama's architecture with a sliding window, here longer than the 40 tokens read.
    "mistral-tiny": dict(BASE, model_type="mistral", architectures=["MistralForCausalLM"],
                         tie_word_embeddings=False, rope_theta=1000000.0, sliding_window=64,
                         head_dim=None),
    # Phi-3: fused qkv_proj and gate_up_proj, rms_norm_eps 1e-5, a window past the context.
    "phi3-tiny": dict(BASE, model_type="phi3", architectures=["Phi3ForCausalLM"],
                      tie_word_embeddings=False, rms_norm_eps=1e-5, sliding_window=48,
                      partial_rotary_factor=1.0),
    # Gemma: (1 + w) norms, GeGLU (hidden_activation), √hidden embedding scale, tied embeddings,
    # head_dim·heads ≠ hidden.
    "gemma-tiny": dict(BASE, model_type="gemma", architectures=["GemmaForCausalLM"],
                       head_dim=12, hidden_act="gelu", hidden_activation="gelu_pytorch_tanh",
                       tie_word_embeddings=True),
    # Gemma 2: sandwich norms, query_pre_attn_scalar, soft-capped scores (small caps so that they
    # bite) and logits, and a window of 7 on the even layers of the 40 tokens read.
    "gemma2-tiny": dict(BASE, model_type="gemma2", architectures=["Gemma2ForCausalLM"],
                        num_hidden_layers=3, hidden_activation="gelu_pytorch_tanh",
                        tie_word_embeddings=True, query_pre_attn_scalar=16,
                        attn_logit_softcapping=2.0, final_logit_softcapping=15.0,
                        sliding_window=7),
    # Gemma 3: q/k norms, sliding layers with their own RoPE base and the global ones with linear
    # scaling, a pattern of 3 (layers 0, 1 slide; 2 is global; 3 slides).
    "gemma3-tiny": dict(BASE, model_type="gemma3_text", architectures=["Gemma3ForCausalLM"],
                        num_hidden_layers=4, hidden_activation="gelu_pytorch_tanh",
                        tie_word_embeddings=True, query_pre_attn_scalar=8, sliding_window=9,
                        sliding_window_pattern=3, rope_theta=1000000.0,
                        rope_local_base_freq=10000.0, attn_logit_softcapping=None,
                        final_logit_softcapping=None,
                        rope_scaling={"rope_type": "linear", "factor": 8.0}),
    # Qwen2 with use_sliding_window: layers 1 and 2 (from max_window_layers on) see 6 keys.
    "qwen2-sliding-tiny": dict(BASE, model_type="qwen2", architectures=["Qwen2ForCausalLM"],
                               num_hidden_layers=3, tie_word_embeddings=False,
                               use_sliding_window=True, sliding_window=6, max_window_layers=1),
}


def main():
    rng = np.random.default_rng(20261122)
    ids = [int(i) for i in rng.integers(0, BASE["vocab_size"], 40)]
    for name, cfg in MODELS.items():
        folder = os.path.join(OUT, name)
        os.makedirs(folder, exist_ok=True)
        w = make_weights(cfg, rng)
        dtype = "BF16" if cfg["torch_dtype"] == "bfloat16" else "F32"
        write_safetensors(os.path.join(folder, "model.safetensors"), w, dtype)
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
        used = {k: (from_bf16(v) if dtype == "BF16" else v).astype(np.float64) for k, v in w.items()}
        logits = forward(cfg, used, ids)
        reference = {"ids": ids, "logits": [[float(x) for x in row] for row in logits]}
        with open(os.path.join(folder, "reference.json"), "w") as f:
            json.dump(reference, f)
        print(name, "logits", logits.shape, "max |logit|", float(np.abs(logits).max()))


if __name__ == "__main__":
    sys.exit(main())

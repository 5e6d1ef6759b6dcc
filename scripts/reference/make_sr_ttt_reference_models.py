#!/usr/bin/python3
"""Writes the tiny SR-TTT reference checkpoints of tests/fixtures/models/sr-ttt-*/ and their expected
logits, per-token surprisal, thresholds, routing and cache contents.

An independent check of the engine's SR-TTT forward pass. The checkpoints use the parameter names of
the corrected public implementation (swamynathanvp/Surprisal-Aware-Residual-Test-Time-Training,
sr_ttt_v2.py: SRTTTConfig, TTTLinearLayer, ResidualCache, SurprisalFilter, CacheReadAttention,
SRTTTBlock, SRTTTModel), and the numbers come from a plain float64 NumPy re-derivation of that
model's eval forward (batch 1, start_pos 0, fresh caches, cache on, no needle positions, no forced
insertion). The safetensors files are written by hand.

What the forward pass does (per layer; every LayerNorm has weight and bias and eps 1e-5):
  h = LayerNorm1(x)
  TTT(h):   q, k, v = h W_q^T, h W_k^T, h W_v^T split into n_heads heads of d_head; rotate-half RoPE
            on q and k at the absolute positions; one LayerNorm(d_head), shared by all heads, on the
            rotated k and on v (not on q). Per head a fast weight W (from W_fast_init), walked over
            update chunks of ttt_update_chunk tokens: first every token's output o_t = W q_t and its
            surprisal L_t = mean over heads and d_head of (W k_t - v_t)^2, both with the chunk's
            starting W; then W -= lr_h (2 / n) sum_t (W k_t - v_t) k_t^T over the n tokens of the chunk
            (n < ttt_update_chunk for a final partial chunk), lr_h = min(|ttt_lr_h|, 1/d_head).
            TTT(h) = concat_heads(o) W_o^T.
  cache:    windows of window_size tokens (the last one may be shorter). For each window in order:
            (1) read the residual cache as it stands: multi-head attention with queries h W_qc^T and
            keys / values (cached h) W_kc^T / W_vc^T, no RoPE, scale 1/sqrt(d_head), only entries at
            positions strictly before the query (always true here, since entries come from earlier
            windows), zeros when the cache is empty; output through cache_attn.W_o.
            (2) tau: p = the window's 95th percentile of L (linear interpolation); tau = p on the
            first window, else beta tau + (1 - beta) p. Route t iff L_t > tau and the mean of L over
            t's chunk (chunk_size tokens counted from the window start, the last chunk zero-padded to
            chunk_size) > 0.8 tau.
            (3) insert the routed tokens' h (ascending position) with surprisal L_t: every resident
            entry ages by 1 per insert call that inserts something; if count + N > cache_cap the
            (count + N - cache_cap) entries of lowest surprisal / (1 + age) are evicted (survivors
            keep their order); if that is the whole cache the cache is emptied and only the first
            cache_cap routed tokens of the window are inserted.
  x = x + TTT(h) + alpha * cache_read(h),  alpha = clamp(gate_param, 0, alpha_max)
  x = x + w2(silu(w1 LayerNorm2(x)) * w3 LayerNorm2(x))
then LayerNorm norm_out and the lm head, which is tied to embed.weight.

Where v2 itself computes in float32 whatever the model's dtype, this script rounds the same way only
for the RoPE tables (inv_freq, the angles, cos and sin are float32 tensors in v2; cos and sin are
rounded correctly here, torch's own float32 cos/sin can be 1 ulp off). v2 also forces float32 on the
whole TTT recurrence (q, the normed k and v, W_fast, lr, outputs and losses: .float() under a
disabled autocast), the cache read's softmax, the cache buffers and the threshold (a float32
torch.quantile, float32 comparisons); those are accumulation noise, not a defined rounding, and stay
float64 here. Instead every routing and eviction decision is asserted to have a relative margin of at
least MIN_MARGIN, so that a float32 implementation reaches the same decisions. Measured during
development: v2's own code on these weights in float32 agrees with reference.json to 1.4e-5 in the
logits with identical routing, thresholds and caches; with its float32 islands promoted to float64
and the same RoPE tables, to 4e-14.

reference.json: {"cases": [{"ids", "logits" [T][V], "layers": [{"layer", "alpha", "loss" [T],
"tau": [{"window": [start, end), "p": window percentile, "tau"}], "routed": [positions flagged by the
filter, whether inserted or not], "cache": [positions resident after the sequence, in slot order],
"evictions": resident entries removed (by priority eviction or by an overflow emptying the cache),
"dropped": routed tokens not inserted because one window routed more than the capacity,
"v2_total_evictions": what v2's ResidualCache.total_evictions would say (its reset() zeroes it)}]}]}.
The state after the sequence includes the final (possibly partial) window, as v2's forward leaves it.

Self-checks: the logits, losses and routing are recomputed token by token as a decoder would
(TTT update when an update chunk completes, filter and insert when a window completes, a partial
last window filtered on a copy at the end) and compared with the whole-sequence computation; and
perturbing the tokens from a position p on must leave the earlier logits and losses bit-identical,
and the thresholds and routing of every window that ends at or before p unchanged.

Run with Debian's python3 and python3-numpy:
  /usr/bin/python3 scripts/reference/make_sr_ttt_reference_models.py
"""

import json
import math
import os
import struct
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fixtures", "models")

LN_EPS = 1e-5  # nn.LayerNorm's default; v2 never passes eps (norm1, norm2, norm_out, ttt.layer_norm)
MIN_MARGIN = 1e-3  # least relative distance of any routing / eviction decision from its threshold


# --- safetensors, written by hand (F32 only; a 0-d tensor has shape []) ------------------------

def write_safetensors(path, tensors):
    header = {}
    blobs = []
    offset = 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(np.shape(array)),
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

def layer_norm(x, gamma, beta, eps=LN_EPS):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)  # population variance
    return gamma * ((x - mu) / np.sqrt(var + eps)) + beta


def silu(x):
    return x / (1.0 + np.exp(-x))


def rope_tables(d_head, theta, positions):
    """cos/sin [len(positions), d_head] as v2's RotaryEmbedding builds them: inv_freq = 1 / theta **
    (arange(0, d, 2) / d), t = arange(T), freqs = outer(t, inv_freq), emb = cat(freqs, freqs), all
    float32 tensors; round each step to float32 here too."""
    exponent = np.arange(0, d_head, 2, dtype=np.int64).astype(np.float32) / np.float32(d_head)
    inv = (np.float32(1.0) / (np.float32(theta) ** exponent)).astype(np.float32)
    freqs = (np.asarray(positions).astype(np.float32)[:, None] * inv[None, :]).astype(np.float32)
    emb = np.concatenate([freqs, freqs], axis=-1).astype(np.float64)
    cos = np.cos(emb).astype(np.float32).astype(np.float64)
    sin = np.sin(emb).astype(np.float32).astype(np.float64)
    return cos, sin


def apply_rope(x, cos, sin):
    """x: [T, H, Dh]; rotate-half: (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin) per half."""
    half = x.shape[-1] // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos[:, None, :] + rotated * sin[:, None, :]


def quantile_linear(values, q):
    """torch.quantile's default ('linear'): rank q (n - 1) between the sorted values."""
    s = np.sort(np.asarray(values, dtype=np.float64))
    rank = q * (len(s) - 1)
    lo = int(math.floor(rank))
    hi = min(lo + 1, len(s) - 1)
    frac = rank - lo
    return float(s[lo] + frac * (s[hi] - s[lo]))


# --- the model pieces --------------------------------------------------------------------------

def dims(cfg):
    return cfg["n_heads"], cfg["d_head"]


def ttt_project(cfg, w, p, h, positions):
    """q (rotated), k (rotated, LayerNormed), v (LayerNormed): [T, H, Dh] each."""
    H, Dh = dims(cfg)
    T = h.shape[0]
    q = (h @ w[p + "W_q.weight"].T).reshape(T, H, Dh)
    k = (h @ w[p + "W_k.weight"].T).reshape(T, H, Dh)
    v = (h @ w[p + "W_v.weight"].T).reshape(T, H, Dh)
    cos, sin = rope_tables(Dh, cfg["rope_theta"], positions)
    q = apply_rope(q, cos, sin)
    k = apply_rope(k, cos, sin)
    lnw, lnb = w[p + "layer_norm.weight"], w[p + "layer_norm.bias"]
    return q, layer_norm(k, lnw, lnb), layer_norm(v, lnw, lnb)


def inner_lr(cfg, w, p):
    H, Dh = dims(cfg)
    return np.minimum(np.abs(w[p + "ttt_lr"]), 1.0 / Dh)  # [H]


def fast_step(W, lr, k, r):
    """W [H,Dh,Dh] after one update chunk with keys k [n,H,Dh] and residuals r = W k - v."""
    n = k.shape[0]
    grad = (2.0 / n) * np.einsum("thi,thj->hij", r, k)
    return W - lr[:, None, None] * grad


def ttt_layer(cfg, w, p, h):
    """Returns (TTT(h) [T, D], per-token surprisal [T])."""
    T = h.shape[0]
    H, Dh = dims(cfg)
    q, k, v = ttt_project(cfg, w, p, h, np.arange(T))
    W = w[p + "W_fast_init"].copy()
    lr = inner_lr(cfg, w, p)
    uc = cfg["ttt_update_chunk"]
    outs, losses = [], []
    for cs in range(0, T, uc):
        ce = min(cs + uc, T)
        outs.append(np.einsum("hij,thj->thi", W, q[cs:ce]))  # output first, with the chunk's start W
        r = np.einsum("hij,thj->thi", W, k[cs:ce]) - v[cs:ce]
        losses.append(np.mean(r * r, axis=(1, 2)))
        W = fast_step(W, lr, k[cs:ce], r)  # then the update (unused after the last chunk)
    o = np.concatenate(outs, axis=0).reshape(T, H * Dh)
    return o @ w[p + "W_o.weight"].T, np.concatenate(losses)


def cache_read(cfg, w, p, hq, qpos, cache):
    """Attention of queries hq [t, D] at positions qpos [t] over the cache's hidden states."""
    H, Dh = dims(cfg)
    t = hq.shape[0]
    if not cache.pos:
        return np.zeros((t, hq.shape[1]))
    ch = np.stack(cache.h)
    cpos = np.array(cache.pos)
    C = ch.shape[0]
    q = (hq @ w[p + "W_qc.weight"].T).reshape(t, H, Dh)
    k = (ch @ w[p + "W_kc.weight"].T).reshape(C, H, Dh)
    v = (ch @ w[p + "W_vc.weight"].T).reshape(C, H, Dh)
    scores = np.einsum("thd,chd->htc", q, k) / math.sqrt(Dh)
    allowed = (cpos[None, :] < np.asarray(qpos)[:, None])[None]  # [1, t, C]
    scores = np.where(allowed, scores, -np.inf)
    top = np.max(scores, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.where(allowed, np.exp(scores - top), 0.0)
    total = e.sum(-1, keepdims=True)
    weights = np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0)  # no visible entry -> 0
    out = np.einsum("htc,chd->thd", weights, v).reshape(t, H * Dh)
    return out @ w[p + "W_o.weight"].T


class Cache:
    """v2's ResidualCache, as lists in slot order."""

    def __init__(self, cap):
        self.cap = cap
        self.h, self.pos, self.surprisal, self.age = [], [], [], []
        self.evictions = 0  # resident entries removed
        self.dropped = 0  # routed tokens never inserted (overflow)
        self.v2_total_evictions = 0
        self.overflow_windows = 0
        self.min_margin = math.inf

    def copy(self):
        c = Cache(self.cap)
        c.h, c.pos, c.surprisal, c.age = list(self.h), list(self.pos), list(self.surprisal), list(self.age)
        c.evictions, c.dropped = self.evictions, self.dropped
        c.v2_total_evictions, c.overflow_windows = self.v2_total_evictions, self.overflow_windows
        c.min_margin = self.min_margin
        return c

    def insert(self, hs, positions, surprisals):
        N = len(positions)
        if N == 0:
            return  # no ageing for an empty insert
        self.age = [a + 1 for a in self.age]
        current = len(self.pos)
        if current + N > self.cap:
            n = current + N - self.cap
            if n >= current:  # v2: reset() -- the whole cache goes, counters too
                self.evictions += current
                self.v2_total_evictions = 0
                self.overflow_windows += 1
                self.h, self.pos, self.surprisal, self.age = [], [], [], []
            else:
                prio = np.array(self.surprisal) / (1.0 + np.array(self.age))
                order = np.argsort(-prio, kind="stable")
                keep = np.sort(order[:current - n])
                kept_min = prio[order[current - n - 1]]
                evicted_max = prio[order[current - n]]
                self.min_margin = min(self.min_margin, (kept_min - evicted_max) / abs(kept_min))
                self.evictions += n
                self.v2_total_evictions += n
                self.h = [self.h[i] for i in keep]
                self.pos = [self.pos[i] for i in keep]
                self.surprisal = [self.surprisal[i] for i in keep]
                self.age = [self.age[i] for i in keep]
            room = self.cap - len(self.pos)
            if N > room:
                self.dropped += N - room
                hs, positions, surprisals = hs[:room], positions[:room], surprisals[:room]
        for hh, pp, ss in zip(hs, positions, surprisals):
            self.h.append(hh)
            self.pos.append(int(pp))
            self.surprisal.append(float(ss))
            self.age.append(0)


class Filter:
    """v2's SurprisalFilter for one layer; records tau per window and the decision margins."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.tau = None
        self.log = []
        self.min_margin = math.inf

    def copy(self):
        f = Filter(self.cfg)
        f.tau, f.log, f.min_margin = self.tau, list(self.log), self.min_margin
        return f

    def __call__(self, losses, start):
        cfg = self.cfg
        losses = np.asarray(losses, dtype=np.float64)
        n = len(losses)
        p = quantile_linear(losses, cfg["surprisal_percentile"] / 100.0)
        beta = cfg["surprisal_beta"]
        self.tau = p if self.tau is None else beta * self.tau + (1 - beta) * p
        tau = self.tau
        cs = cfg["chunk_size"]
        pad = (cs - n % cs) % cs
        padded = np.concatenate([losses, np.zeros(pad)])
        chunk = np.repeat(padded.reshape(-1, cs).mean(axis=1), cs)[:n]
        flags = (losses > tau) & (chunk > 0.8 * tau)
        if not (len(self.log) == 0 and n == 1):  # a lone first token is its own tau: L == tau exactly
            margin = min(np.min(np.abs(losses - tau)), np.min(np.abs(chunk - 0.8 * tau))) / abs(tau)
            self.min_margin = min(self.min_margin, margin)
        self.log.append({"window": [start, start + n], "p": p, "tau": tau})
        return np.nonzero(flags)[0]


def alpha_of(cfg, w, p):
    return float(np.clip(w[p + "gate_param"], 0.0, cfg["alpha_max"]))


def ffn(w, p, x):
    hn = layer_norm(x, w[p + "norm2.weight"], w[p + "norm2.bias"])
    return (silu(hn @ w[p + "ffn.w1.weight"].T) * (hn @ w[p + "ffn.w3.weight"].T)) @ w[p + "ffn.w2.weight"].T


def head(w, x):
    x = layer_norm(x, w["norm_out.weight"], w["norm_out.bias"])
    return x @ w["embed.weight"].T  # lm_head.weight is embed.weight


def layer_record(layer, alpha, losses, filt, cache, routed):
    return {"layer": layer, "alpha": alpha, "loss": [float(v) for v in losses],
            "tau": filt.log, "routed": [int(t) for t in routed], "cache": list(cache.pos),
            "evictions": cache.evictions, "dropped": cache.dropped,
            "v2_total_evictions": cache.v2_total_evictions,
            "_margins": (filt.min_margin, cache.min_margin), "_overflow": cache.overflow_windows}


def forward(cfg, w, ids):
    """The whole-sequence forward, as v2's SRTTTModel.forward computes it."""
    T = len(ids)
    Wsz = cfg["window_size"]
    x = w["embed.weight"][ids]
    layers = []
    for layer in range(cfg["n_layers"]):
        p = f"blocks.{layer}."
        h = layer_norm(x, w[p + "norm1.weight"], w[p + "norm1.bias"])
        ttt_out, losses = ttt_layer(cfg, w, p + "ttt.", h)
        cache = Cache(cfg["cache_cap"])
        filt = Filter(cfg)
        cache_out = np.zeros_like(h)
        routed = []
        for ws in range(0, T, Wsz):
            we = min(ws + Wsz, T)
            cache_out[ws:we] = cache_read(cfg, w, p + "cache_attn.", h[ws:we], np.arange(ws, we), cache)
            idx = filt(losses[ws:we], ws)
            routed.extend(ws + idx)
            cache.insert(h[ws + idx], ws + idx, losses[ws + idx])
        alpha = alpha_of(cfg, w, p)
        x = x + ttt_out + alpha * cache_out
        x = x + ffn(w, p, x)
        layers.append(layer_record(layer, alpha, losses, filt, cache, routed))
    return head(w, x), layers


def forward_streaming(cfg, w, ids):
    """The same model token by token, as a decoder runs it."""
    H, Dh = dims(cfg)
    uc, Wsz = cfg["ttt_update_chunk"], cfg["window_size"]
    states = []
    for layer in range(cfg["n_layers"]):
        p = f"blocks.{layer}."
        states.append({"W": w[p + "ttt.W_fast_init"].copy(), "lr": inner_lr(cfg, w, p + "ttt."),
                       "k": [], "r": [], "cache": Cache(cfg["cache_cap"]), "filter": Filter(cfg),
                       "win_h": [], "win_loss": [], "win_start": 0, "losses": [], "routed": []})
    logits = []
    for t, tok in enumerate(ids):
        x = w["embed.weight"][[tok]]
        for layer, st in enumerate(states):
            p = f"blocks.{layer}."
            h = layer_norm(x, w[p + "norm1.weight"], w[p + "norm1.bias"])
            q, k, v = ttt_project(cfg, w, p + "ttt.", h, np.array([t]))
            o = np.einsum("hij,thj->thi", st["W"], q).reshape(1, H * Dh)
            r = np.einsum("hij,thj->thi", st["W"], k) - v
            loss = float(np.mean(r * r))
            st["losses"].append(loss)
            st["k"].append(k[0])
            st["r"].append(r[0])
            if len(st["k"]) == uc:  # the update chunk is complete
                st["W"] = fast_step(st["W"], st["lr"], np.stack(st["k"]), np.stack(st["r"]))
                st["k"], st["r"] = [], []
            cread = cache_read(cfg, w, p + "cache_attn.", h, np.array([t]), st["cache"])
            st["win_h"].append(h[0])
            st["win_loss"].append(loss)
            if len(st["win_h"]) == Wsz:  # the window is complete: filter, then insert
                close_window(st)
            x = x + o @ w[p + "ttt.W_o.weight"].T + alpha_of(cfg, w, p) * cread
            x = x + ffn(w, p, x)
        logits.append(head(w, x)[0])
    layers = []
    for layer, st in enumerate(states):
        if st["win_h"]:  # what v2 leaves after the sequence: the partial window filtered too
            st = dict(st, cache=st["cache"].copy(), filter=st["filter"].copy(), routed=list(st["routed"]))
            close_window(st)
        layers.append(layer_record(layer, alpha_of(cfg, w, f"blocks.{layer}."), st["losses"],
                                   st["filter"], st["cache"], st["routed"]))
    return np.array(logits), layers


def close_window(st):
    ws = st["win_start"]
    idx = st["filter"](st["win_loss"], ws)
    st["routed"].extend(ws + idx)
    st["cache"].insert([st["win_h"][i] for i in idx], ws + idx, [st["win_loss"][i] for i in idx])
    st["win_start"] = ws + len(st["win_h"])
    st["win_h"], st["win_loss"] = [], []


# --- the models --------------------------------------------------------------------------------

def make_weights(cfg, rng, s):
    """Parameters in the order SRTTTModel.state_dict() lists them, without the tied lm_head.weight
    and the buffers (ttt.rope.inv_freq and the cache.* runtime state). s: scales."""
    V, D, F = cfg["vocab_size"], cfg["d_model"], cfg["d_ff"]
    H, Dh = dims(cfg)
    w = {"embed.weight": rng.normal(0, s["embed"], (V, D))}
    for layer in range(cfg["n_layers"]):
        p = f"blocks.{layer}."
        w[p + "gate_param"] = np.array(s["gate"][layer])
        w[p + "norm1.weight"] = 1 + rng.normal(0, 0.1, D)
        w[p + "norm1.bias"] = rng.normal(0, 0.1, D)
        w[p + "ttt.W_fast_init"] = rng.normal(0, s["fast"], (H, Dh, Dh))
        w[p + "ttt.ttt_lr"] = np.array(s["ttt_lr"][layer])
        for n in ("W_q", "W_k", "W_v"):
            w[p + f"ttt.{n}.weight"] = rng.normal(0, s["proj"], (H * Dh, D))
        w[p + "ttt.W_o.weight"] = rng.normal(0, s["proj"], (D, H * Dh))
        w[p + "ttt.layer_norm.weight"] = 1 + rng.normal(0, 0.1, Dh)
        w[p + "ttt.layer_norm.bias"] = rng.normal(0, 0.1, Dh)
        for n in ("W_qc", "W_kc", "W_vc"):
            w[p + f"cache_attn.{n}.weight"] = rng.normal(0, s["cache"], (H * Dh, D))
        w[p + "cache_attn.W_o.weight"] = rng.normal(0, s["cache"], (D, H * Dh))
        w[p + "norm2.weight"] = 1 + rng.normal(0, 0.1, D)
        w[p + "norm2.bias"] = rng.normal(0, 0.1, D)
        w[p + "ffn.w1.weight"] = rng.normal(0, 0.2, (F, D))
        w[p + "ffn.w2.weight"] = rng.normal(0, 0.2, (D, F))
        w[p + "ffn.w3.weight"] = rng.normal(0, 0.2, (F, D))
    w["norm_out.weight"] = 1 + rng.normal(0, 0.1, D)
    w["norm_out.bias"] = rng.normal(0, 0.1, D)
    # The stored weights are float32: compute the reference from exactly those values.
    return {k: np.asarray(v).astype(np.float32) for k, v in w.items()}


def make_ids(rng, vocab, length, background, bursts):
    """A low-surprisal background (a short cycle of tokens) with runs of random tokens at the given
    (start, length) places, which the fast weights have not seen."""
    ids = [background[i % len(background)] for i in range(length)]
    for start, n in bursts:
        for i in range(start, min(start + n, length)):
            ids[i] = int(rng.integers(0, vocab))
    return ids


# All SRTTTConfig fields by v2's names, v2's defaults where the tiny size does not need another.
BASE = {
    "model_type": "sr_ttt", "architectures": ["SRTTT"],
    "n_layers": 2, "d_model": 32, "n_heads": 4, "d_head": 8, "d_ff": 64,
    "ttt_lr": 0.01, "window_size": 64, "ttt_update_chunk": 16,
    "cache_cap": 512, "surprisal_beta": 0.9, "surprisal_percentile": 95.0, "chunk_size": 16,
    "alpha_init": 0.05, "alpha_max": 0.5,
    "needle_style": "digits", "needle_len_units": 8,
    "oracle_weight": 1.0, "force_insert_needle_in_training": True,
    "vocab_size": 97, "max_seq_len": 256, "rope_theta": 10000.0, "dtype": "float32",
    "tie_word_embeddings": True, "torch_dtype": "float32",
}

MODELS = {
    # Windows of 8, update chunks and filter chunks of 4, a cache that never fills.
    "sr-ttt-tiny": {
        "cfg": dict(BASE, window_size=8, ttt_update_chunk=4, chunk_size=4, cache_cap=64),
        "seed": 2,
        "scales": {"embed": 1.0, "fast": 0.05, "proj": 0.3, "cache": 0.2, "gate": [0.3, 0.2],
                   "ttt_lr": [[0.06, -0.09, 0.3, 0.11], [-0.05, 0.125, 0.08, -0.4]]},
        "lengths": [1, 13, 32, 45],
        "background": [5, 17, 5, 42], "bursts": [(12, 4), (26, 6), (36, 3)],
    },
    # Windows of 10 with filter chunks of 4 (every window ends in a zero-padded chunk of 2), update
    # chunks of 3, and a cache of 6 that fills, evicts by priority and overflows.
    "sr-ttt-evict-tiny": {
        "cfg": dict(BASE, window_size=10, ttt_update_chunk=3, chunk_size=4, cache_cap=6,
                    alpha_max=0.6),
        "seed": 173,
        "scales": {"embed": 1.0, "fast": 0.05, "proj": 0.3, "cache": 0.2, "gate": [0.25, 0.35],
                   "ttt_lr": [[0.1, -0.2, 0.07, 0.125], [0.09, -0.03, 0.2, 0.06]]},
        "lengths": [7, 30, 47, 64],
        "background": [3, 3, 60], "bursts": [(10, 8), (28, 4), (40, 10), (53, 7)],
    },
}


def check_same(name, T, a_logits, a_layers, b_logits, b_layers):
    diff = float(np.abs(a_logits - b_logits).max())
    assert diff < 1e-10, (name, T, diff)
    for la, lb in zip(a_layers, b_layers):
        assert np.abs(np.array(la["loss"]) - np.array(lb["loss"])).max() < 1e-10, (name, T)
        for key in ("routed", "cache", "evictions", "dropped", "v2_total_evictions"):
            assert la[key] == lb[key], (name, T, key, la[key], lb[key])
        for ta, tb in zip(la["tau"], lb["tau"]):
            assert ta["window"] == tb["window"] and abs(ta["tau"] - tb["tau"]) < 1e-12, (name, T)
    return diff


def check_causal(cfg, w, ids, logits, layers, p, rng):
    """Perturb ids[p:]; everything before p must stay."""
    ids2 = list(ids)
    for i in range(p, len(ids)):
        ids2[i] = (ids2[i] + 1 + int(rng.integers(0, cfg["vocab_size"] - 1))) % cfg["vocab_size"]
    logits2, layers2 = forward(cfg, w, ids2)
    assert np.array_equal(logits[:p], logits2[:p]), ("logits leak", p)
    for la, lb in zip(layers, layers2):
        assert la["loss"][:p] == lb["loss"][:p], ("loss leak", p)
        done = [t for t in la["tau"] if t["window"][1] <= p]
        assert done == lb["tau"][:len(done)], ("tau leak", p)
        end = done[-1]["window"][1] if done else 0
        assert [t for t in la["routed"] if t < end] == [t for t in lb["routed"] if t < end], ("routing leak", p)


def main():
    worst_stream = 0.0
    for name, spec in MODELS.items():
        cfg = spec["cfg"]
        rng = np.random.default_rng(spec["seed"])
        folder = os.path.join(OUT, name)
        os.makedirs(folder, exist_ok=True)
        w32 = make_weights(cfg, rng, spec["scales"])
        used = {k: v.astype(np.float64) for k, v in w32.items()}
        longest = max(spec["lengths"])
        ids_all = make_ids(rng, cfg["vocab_size"], longest, spec["background"], spec["bursts"])
        cases = []
        for T in spec["lengths"]:
            ids = ids_all[:T]
            logits, layers = forward(cfg, used, ids)
            s_logits, s_layers = forward_streaming(cfg, used, ids)
            diff = check_same(name, T, logits, layers, s_logits, s_layers)
            worst_stream = max(worst_stream, diff)
            for p in sorted({max(T - 3, 1), T // 2 + 1}):
                if p < T:
                    check_causal(cfg, used, ids, logits, layers, p, rng)
            # How much the cache path moves the logits: the same model with alpha forced to 0.
            no_cache = {k: (np.zeros(()) if k.endswith("gate_param") else v) for k, v in used.items()}
            cache_effect = float(np.abs(logits - forward(cfg, no_cache, ids)[0]).max())
            margin = math.inf
            for l in layers:
                fm, cm = l.pop("_margins")
                assert fm >= MIN_MARGIN and cm >= MIN_MARGIN, (name, T, l["layer"], fm, cm)
                margin = min(margin, fm, cm)
            overflow = [l.pop("_overflow") for l in layers]
            cases.append({"ids": [int(i) for i in ids],
                          "logits": [[float(x) for x in row] for row in logits],
                          "layers": layers})
            stats = "  ".join(f"L{l['layer']}: routed {len(l['routed'])}/{T} cache {len(l['cache'])} "
                              f"evicted {l['evictions']} dropped {l['dropped']} overflow {o}"
                              for l, o in zip(layers, overflow))
            print(f"{name} T={T:3d} |stream - whole| {diff:.1e}  cache effect {cache_effect:.4f}  "
                  f"min decision margin {margin:.1e}  {stats}")
        write_safetensors(os.path.join(folder, "model.safetensors"), w32)
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
        with open(os.path.join(folder, "reference.json"), "w") as f:
            json.dump({"cases": cases}, f)
    print("max |streaming - whole-sequence| logits over all models and cases:", worst_stream)


if __name__ == "__main__":
    sys.exit(main())

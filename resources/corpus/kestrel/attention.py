"""Attention: rotary position embeddings, masks, a key/value cache and multi-head attention with
grouped key/value heads."""

import math
from typing import Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from kestrel.normalization import RMSNorm


class RotaryEmbedding(nn.Module):
    """Rotates query and key pairs by position-dependent angles (rotate-half layout)."""

    def __init__(self, head_dim: int, max_seq_len: int, theta: float = 10000.0):
        super().__init__()
        if head_dim % 2 != 0:
            raise ValueError("rotary embeddings need an even head dimension")
        inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2).float() / head_dim))
        positions = torch.arange(max_seq_len).float()
        angles = torch.outer(positions, inv_freq)
        self.register_buffer("cos", torch.cat([angles.cos(), angles.cos()], dim=-1), persistent=False)
        self.register_buffer("sin", torch.cat([angles.sin(), angles.sin()], dim=-1), persistent=False)
        self.max_seq_len = max_seq_len

    @staticmethod
    def rotate_half(x: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        first, second = x[..., :half], x[..., half:]
        return torch.cat([-second, first], dim=-1)

    def forward(self, q: torch.Tensor, k: torch.Tensor, offset: int = 0):
        seq_len = q.shape[-2]
        if offset + seq_len > self.max_seq_len:
            raise ValueError(
                f"position {offset + seq_len} exceeds the rotary table of {self.max_seq_len}"
            )
        cos = self.cos[offset : offset + seq_len]
        sin = self.sin[offset : offset + seq_len]
        q_rot = q * cos + self.rotate_half(q) * sin
        k_rot = k * cos + self.rotate_half(k) * sin
        return q_rot, k_rot


def causal_mask(q_len: int, k_len: int, device=None) -> torch.Tensor:
    """True where a query may attend. Queries are the last q_len of k_len positions."""
    q_pos = torch.arange(k_len - q_len, k_len, device=device).unsqueeze(-1)
    k_pos = torch.arange(k_len, device=device).unsqueeze(0)
    return k_pos <= q_pos


def sliding_window_mask(q_len: int, k_len: int, window: int, device=None) -> torch.Tensor:
    q_pos = torch.arange(k_len - q_len, k_len, device=device).unsqueeze(-1)
    k_pos = torch.arange(k_len, device=device).unsqueeze(0)
    distance = q_pos - k_pos
    return (distance >= 0) & (distance < window)


def repeat_kv(x: torch.Tensor, groups: int) -> torch.Tensor:
    """[batch, kv_heads, seq, dim] -> [batch, kv_heads * groups, seq, dim]."""
    if groups == 1:
        return x
    batch, kv_heads, seq, dim = x.shape
    x = x.unsqueeze(2).expand(batch, kv_heads, groups, seq, dim)
    return x.reshape(batch, kv_heads * groups, seq, dim)


def scaled_dot_product(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: Optional[torch.Tensor] = None,
    dropout_p: float = 0.0,
    training: bool = False,
) -> Tuple[torch.Tensor, torch.Tensor]:
    head_dim = q.shape[-1]
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(head_dim)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    probs = F.softmax(scores, dim=-1)
    if dropout_p > 0.0 and training:
        probs = F.dropout(probs, p=dropout_p)
    out = torch.matmul(probs, v)
    return out, probs


def attention_entropy(probs: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    """Mean entropy of each query's attention distribution, in nats."""
    entropy = -(probs * torch.log(probs + eps)).sum(dim=-1)
    return entropy.mean(dim=-1)


def target_mass(probs: torch.Tensor, target_positions: torch.Tensor) -> torch.Tensor:
    """Share of attention each query puts on the target keys."""
    gathered = probs.index_select(-1, target_positions)
    return gathered.sum(dim=-1)


class KVCache:
    """Keys and values of past positions for incremental decoding."""

    def __init__(self, n_layers: int):
        self.keys = [None] * n_layers
        self.values = [None] * n_layers

    def length(self, layer: int = 0) -> int:
        cached = self.keys[layer]
        return 0 if cached is None else cached.shape[-2]

    def update(self, layer: int, k: torch.Tensor, v: torch.Tensor):
        if self.keys[layer] is None:
            self.keys[layer] = k
            self.values[layer] = v
        else:
            self.keys[layer] = torch.cat([self.keys[layer], k], dim=-2)
            self.values[layer] = torch.cat([self.values[layer], v], dim=-2)
        return self.keys[layer], self.values[layer]

    def truncate(self, length: int):
        for layer in range(len(self.keys)):
            if self.keys[layer] is not None:
                self.keys[layer] = self.keys[layer][..., :length, :]
                self.values[layer] = self.values[layer][..., :length, :]

    def memory_bytes(self) -> int:
        total = 0
        for layer in range(len(self.keys)):
            if self.keys[layer] is not None:
                total += self.keys[layer].numel() * self.keys[layer].element_size()
                total += self.values[layer].numel() * self.values[layer].element_size()
        return total


class MultiHeadAttention(nn.Module):
    def __init__(self, config, layer_index: int):
        super().__init__()
        self.layer_index = layer_index
        self.n_heads = config.n_heads
        self.n_kv_heads = config.n_kv_heads
        self.head_dim = config.head_dim
        self.groups = self.n_heads // self.n_kv_heads
        self.scale = self.head_dim ** -0.5
        self.dropout = config.dropout
        self.sliding_window = config.sliding_window
        self.q_proj = nn.Linear(config.d_model, self.n_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(config.d_model, self.n_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(config.d_model, self.n_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(self.n_heads * self.head_dim, config.d_model, bias=False)
        if config.qk_norm:
            self.q_norm = RMSNorm(self.head_dim, eps=config.norm_eps)
            self.k_norm = RMSNorm(self.head_dim, eps=config.norm_eps)
        else:
            self.q_norm = None
            self.k_norm = None

    def split_heads(self, x: torch.Tensor, heads: int) -> torch.Tensor:
        batch, seq, _ = x.shape
        return x.view(batch, seq, heads, self.head_dim).transpose(1, 2)

    def forward(self, x, rotary, cache: Optional[KVCache] = None, return_probs: bool = False):
        batch, seq, _ = x.shape
        q = self.split_heads(self.q_proj(x), self.n_heads)
        k = self.split_heads(self.k_proj(x), self.n_kv_heads)
        v = self.split_heads(self.v_proj(x), self.n_kv_heads)
        if self.q_norm is not None:
            q = self.q_norm(q)
            k = self.k_norm(k)
        offset = 0 if cache is None else cache.length(self.layer_index)
        q, k = rotary(q, k, offset=offset)
        if cache is not None:
            k, v = cache.update(self.layer_index, k, v)
        k = repeat_kv(k, self.groups)
        v = repeat_kv(v, self.groups)
        k_len = k.shape[-2]
        if self.sliding_window is not None:
            mask = sliding_window_mask(seq, k_len, self.sliding_window, device=x.device)
        else:
            mask = causal_mask(seq, k_len, device=x.device)
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        scores = scores.masked_fill(~mask, float("-inf"))
        probs = F.softmax(scores.float(), dim=-1).to(q.dtype)
        if self.dropout > 0.0 and self.training:
            probs = F.dropout(probs, p=self.dropout)
        out = torch.matmul(probs, v)
        out = out.transpose(1, 2).reshape(batch, seq, self.n_heads * self.head_dim)
        out = self.o_proj(out)
        if return_probs:
            return out, probs
        return out


def logit_margin(scores: torch.Tensor, target: int) -> torch.Tensor:
    """Target logit minus the log-sum-exp of every other logit, per query."""
    target_logit = scores[..., target]
    others = scores.clone()
    others[..., target] = float("-inf")
    return target_logit - torch.logsumexp(others, dim=-1)


def near_ties(scores: torch.Tensor, target: int, delta: float) -> torch.Tensor:
    """Number of non-target keys whose logit is within delta of the target's."""
    threshold = scores[..., target : target + 1] - delta
    close = scores >= threshold
    close[..., target] = False
    return close.sum(dim=-1)

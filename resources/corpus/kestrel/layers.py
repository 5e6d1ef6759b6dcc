"""Feed-forward layers and the transformer block."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from kestrel.attention import MultiHeadAttention
from kestrel.normalization import build_norm


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, hidden: int, dropout: float = 0.0):
        super().__init__()
        self.gate_proj = nn.Linear(d_model, hidden, bias=False)
        self.up_proj = nn.Linear(d_model, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, d_model, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = F.silu(self.gate_proj(x))
        return self.dropout(self.down_proj(gate * self.up_proj(x)))


class GeluMLP(nn.Module):
    def __init__(self, d_model: int, hidden: int, dropout: float = 0.0):
        super().__init__()
        self.fc_in = nn.Linear(d_model, hidden)
        self.fc_out = nn.Linear(hidden, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.fc_out(F.gelu(self.fc_in(x), approximate="tanh")))


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, scale_by_width: bool = False):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(vocab_size, d_model))
        self.multiplier = math.sqrt(d_model) if scale_by_width else 1.0
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.max() >= self.weight.shape[0]:
            raise IndexError("token id outside the vocabulary")
        return F.embedding(tokens, self.weight) * self.multiplier


class Block(nn.Module):
    """Pre-norm residual block: x + attn(norm(x)), then x + mlp(norm(x))."""

    def __init__(self, config, layer_index: int):
        super().__init__()
        self.norm1 = build_norm(config.norm_type, config.d_model, config.norm_eps)
        self.attn = MultiHeadAttention(config, layer_index)
        self.norm2 = build_norm(config.norm_type, config.d_model, config.norm_eps)
        self.mlp = SwiGLU(config.d_model, config.mlp_hidden, config.dropout)
        self.residual_scale = 1.0

    def forward(self, x, rotary, cache=None):
        x = x + self.attn(self.norm1(x), rotary, cache) * self.residual_scale
        x = x + self.mlp(self.norm2(x))
        return x


class ParallelBlock(nn.Module):
    """Attention and MLP read the same normalised input and are added together."""

    def __init__(self, config, layer_index: int):
        super().__init__()
        self.norm = build_norm(config.norm_type, config.d_model, config.norm_eps)
        self.attn = MultiHeadAttention(config, layer_index)
        self.mlp = SwiGLU(config.d_model, config.mlp_hidden, config.dropout)

    def forward(self, x, rotary, cache=None):
        h = self.norm(x)
        return x + self.attn(h, rotary, cache) + self.mlp(h)


class MLPOnlyBlock(nn.Module):
    """A block without attention, used for ablations of the mixing layers."""

    def __init__(self, config):
        super().__init__()
        self.norm = build_norm(config.norm_type, config.d_model, config.norm_eps)
        self.mlp = SwiGLU(config.d_model, config.mlp_hidden, config.dropout)

    def forward(self, x):
        x = x + self.mlp(self.norm(x))
        return x


class Adapter(nn.Module):
    """A low-rank residual adapter: x + up(act(down(norm(x)))) * alpha / rank."""

    def __init__(self, d_model: int, rank: int, alpha: float = 16.0):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.down = nn.Linear(d_model, rank, bias=False)
        self.up = nn.Linear(rank, d_model, bias=False)
        self.scaling = alpha / rank
        nn.init.zeros_(self.up.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.up(F.gelu(self.down(self.norm(x))))
        return x + h * self.scaling


def drop_path(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    """Stochastic depth: drops the whole residual branch of some samples."""
    if p == 0.0 or not training:
        return x
    keep = 1.0 - p
    shape = (x.shape[0],) + (1,) * (x.dim() - 1)
    mask = torch.rand(shape, device=x.device) < keep
    return x * mask / keep

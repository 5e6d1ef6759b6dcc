"""Normalisation layers: LayerNorm, RMSNorm, a grouped variant and ScaleNorm."""

import torch
import torch.nn as nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5, bias: bool = True):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim)) if bias else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        out = x_hat * self.weight
        if self.bias is not None:
            out = out + self.bias
        return out


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Statistics in float32: bf16 squares lose too many bits on long rows.
        dtype = x.dtype
        x = x.float()
        mean_square = x.pow(2).mean(dim=-1, keepdim=True)
        x = x * torch.rsqrt(mean_square + self.eps)
        return (x * self.weight).to(dtype)


class GroupRMSNorm(nn.Module):
    """RMSNorm applied separately to each of `groups` equal slices of the last dimension."""

    def __init__(self, dim: int, groups: int, eps: float = 1e-6):
        super().__init__()
        if dim % groups != 0:
            raise ValueError(f"dim={dim} is not divisible by groups={groups}")
        self.groups = groups
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        x = x.view(*shape[:-1], self.groups, shape[-1] // self.groups)
        mean_square = x.pow(2).mean(dim=-1, keepdim=True)
        x = x * torch.rsqrt(mean_square + self.eps)
        return x.view(shape) * self.weight


class ScaleNorm(nn.Module):
    """Normalises to a single learned length: g * x / ||x||."""

    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.gain = nn.Parameter(torch.tensor(dim ** 0.5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        norm = x.norm(dim=-1, keepdim=True).clamp(min=self.eps)
        return self.gain * x / norm


def build_norm(norm_type: str, dim: int, eps: float) -> nn.Module:
    if norm_type == "rmsnorm":
        return RMSNorm(dim, eps=eps)
    if norm_type == "layernorm":
        return LayerNorm(dim, eps=eps)
    raise ValueError(f"unknown norm type {norm_type!r}")


def standardize(x: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """Zero mean, unit variance over the last dimension, without learned parameters."""
    mean = x.mean(dim=-1, keepdim=True)
    std = x.std(dim=-1, keepdim=True)
    return (x - mean) / (std + eps)


def l2_normalize(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    norm = torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    return x / norm.clamp(min=eps)


def running_norm_update(running_mean, running_var, batch, momentum: float = 0.1):
    """Batch-norm style running statistics over the batch dimension."""
    batch_mean = batch.mean(dim=0)
    batch_var = batch.var(dim=0, unbiased=True)
    running_mean.mul_(1.0 - momentum).add_(batch_mean, alpha=momentum)
    running_var.mul_(1.0 - momentum).add_(batch_var, alpha=momentum)
    return running_mean, running_var

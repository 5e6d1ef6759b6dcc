"""Test-time training layers: a linear fast-weight model updated by gradient steps on a
self-supervised reconstruction loss while the sequence is read, and query-only adaptation of a
frozen attention model."""

import math
from typing import Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from kestrel.losses import span_loss
from kestrel.normalization import LayerNorm


class TTTLinear(nn.Module):
    """Fast weights W (per head) learn to map a view of each token to another view of it.

    For each mini-batch of tokens the inner loss is ||LN(W k) - (v - k)||^2; W takes one gradient
    step per mini-batch with a learned, token-dependent learning rate, and the output for the
    mini-batch is read with the updated weights.
    """

    def __init__(self, d_model: int, n_heads: int, mini_batch: int = 16, base_lr: float = 1.0):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.mini_batch = mini_batch
        self.base_lr = base_lr
        self.theta_k = nn.Linear(d_model, d_model, bias=False)
        self.theta_v = nn.Linear(d_model, d_model, bias=False)
        self.theta_q = nn.Linear(d_model, d_model, bias=False)
        self.lr_proj = nn.Linear(d_model, n_heads)
        self.inner_norm = LayerNorm(self.head_dim)
        self.out_norm = LayerNorm(d_model)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)
        self.w_init = nn.Parameter(torch.zeros(n_heads, self.head_dim, self.head_dim))

    def heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, _ = x.shape
        return x.view(batch, seq, self.n_heads, self.head_dim).transpose(1, 2)

    def inner_lr(self, x: torch.Tensor) -> torch.Tensor:
        # [batch, heads, seq]: base_lr * sigmoid(.) / head_dim keeps steps stable at any width.
        gate = torch.sigmoid(self.lr_proj(x)).transpose(1, 2)
        return self.base_lr * gate / self.head_dim

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        batch, seq, _ = x.shape
        if seq % self.mini_batch != 0:
            raise ValueError(f"sequence length {seq} is not a multiple of {self.mini_batch}")
        k = self.heads(self.theta_k(x))
        v = self.heads(self.theta_v(x))
        q = self.heads(self.theta_q(x))
        lr = self.inner_lr(x)
        w = self.w_init.unsqueeze(0).expand(batch, -1, -1, -1).clone()
        outputs = []
        losses = []
        for start in range(0, seq, self.mini_batch):
            end = start + self.mini_batch
            k_b, v_b, q_b = k[:, :, start:end], v[:, :, start:end], q[:, :, start:end]
            target = v_b - k_b
            pred = self.inner_norm(torch.matmul(k_b, w))
            error = pred - target
            losses.append(error.pow(2).mean().detach())
            # The gradient of the squared error through the norm is approximated by the error.
            grad = torch.matmul(k_b.transpose(-2, -1), error * lr[:, :, start:end, None])
            w = w - grad / self.mini_batch
            outputs.append(self.inner_norm(torch.matmul(q_b, w)) + q_b)
        out = torch.cat(outputs, dim=2).transpose(1, 2).reshape(batch, seq, -1)
        return self.out_proj(self.out_norm(out)), torch.stack(losses)


class TTTBlock(nn.Module):
    def __init__(self, d_model: int, n_heads: int, mini_batch: int = 16):
        super().__init__()
        self.norm = LayerNorm(d_model)
        self.ttt = TTTLinear(d_model, n_heads, mini_batch)
        self.mlp_norm = LayerNorm(d_model)
        self.mlp = nn.Sequential(
            nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.ttt(self.norm(x))
        x = x + h
        x = x + self.mlp(self.mlp_norm(x))
        return x


def sample_span_start(seq_len: int, span: int, generator: torch.Generator) -> int:
    """Uniform start t in [0, seq_len - span - 1] so the span's next tokens exist."""
    high = seq_len - span
    return int(torch.randint(0, high, (1,), generator=generator).item())


def query_only_adaptation(model, tokens: torch.Tensor, steps: int = 32, span: int = 128,
                          lr: float = 1e-5, seed: int = 0):
    """Adapts only the query projections of a frozen model to the context in `tokens`.

    Keys and values of the context are computed once; each step samples a span and lowers its
    next-token loss by moving W_Q only. Returns the per-step losses. The original W_Q is
    restored by the caller from the returned copy.
    """
    originals = {}
    params = []
    for name, p in model.named_parameters():
        if name.endswith("q_proj.weight"):
            originals[name] = p.detach().clone()
            p.requires_grad_(True)
            params.append(p)
        else:
            p.requires_grad_(False)
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    generator = torch.Generator().manual_seed(seed)
    losses = []
    for _ in range(steps):
        start = sample_span_start(tokens.shape[1], span, generator)
        logits = model(tokens[:, : start + span])
        loss = span_loss(logits, tokens, start, span)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        losses.append(loss.item())
    return losses, originals


def restore_weights(model, originals):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name in originals:
                p.copy_(originals[name])


def fast_weight_loss_curves(layer: TTTLinear, x: torch.Tensor):
    """The inner loss before the update, for the three views the TTT papers plot."""
    _, losses = layer(x)
    return losses.mean(dim=-1)


def required_margin(seq_len: int, eps: float = 0.1) -> float:
    """Logit margin a single target needs to keep 1 - eps of the attention at length seq_len."""
    return math.log((seq_len - 1) * (1.0 - eps) / eps)


def dilution_bound(near_ties: int, delta: float) -> float:
    return 1.0 / (1.0 + near_ties * math.exp(-delta))


def attention_mass_on(q: torch.Tensor, k: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Attention mass the queries put on the target keys, without the full probability matrix."""
    scale = 1.0 / math.sqrt(q.shape[-1])
    logits = torch.matmul(q, k.transpose(-2, -1)) * scale
    lse = torch.logsumexp(logits, dim=-1, keepdim=True)
    target_logits = logits.index_select(-1, target)
    return torch.exp(target_logits - lse).sum(dim=-1)


def kl_to_uniform(probs: torch.Tensor) -> torch.Tensor:
    n = probs.shape[-1]
    return (probs * (probs * n).clamp(min=1e-12).log()).sum(dim=-1)


def mix_with_ema(current: torch.Tensor, ema: torch.Tensor, weight: float) -> torch.Tensor:
    return torch.lerp(ema, current, weight)


def chunked_cross_entropy(hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor,
                          chunk: int = 1024) -> torch.Tensor:
    """Cross entropy of hidden @ weight.T without the whole [tokens, vocab] logits at once."""
    total = hidden.new_zeros(())
    count = 0
    for start in range(0, hidden.shape[0], chunk):
        end = min(start + chunk, hidden.shape[0])
        logits = F.linear(hidden[start:end], weight)
        total = total + F.cross_entropy(logits.float(), targets[start:end], reduction="sum")
        count += end - start
    return total / max(1, count)

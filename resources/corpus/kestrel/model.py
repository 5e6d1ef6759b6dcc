"""The causal language model: embeddings, blocks, final norm, tied output head, generation."""

import math
from typing import List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from kestrel.attention import KVCache, RotaryEmbedding
from kestrel.layers import Block, TokenEmbedding
from kestrel.normalization import build_norm


class CausalLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed = TokenEmbedding(config.vocab_size, config.d_model)
        self.rotary = RotaryEmbedding(config.head_dim, config.max_seq_len, config.rope_theta)
        self.blocks = nn.ModuleList([Block(config, i) for i in range(config.n_layers)])
        self.final_norm = build_norm(config.norm_type, config.d_model, config.norm_eps)
        if config.tie_embeddings:
            self.lm_head = None
        else:
            self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        self.apply(self._init_weights)
        self._scale_residual_projections()

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)

    def _scale_residual_projections(self):
        # Projections that write into the residual stream shrink with depth, so the stream's
        # variance stays roughly constant however many blocks add to it.
        std = 0.02 / math.sqrt(2 * self.config.n_layers)
        for block in self.blocks:
            nn.init.normal_(block.attn.o_proj.weight, mean=0.0, std=std)
            nn.init.normal_(block.mlp.down_proj.weight, mean=0.0, std=std)

    def output_weight(self) -> torch.Tensor:
        return self.embed.weight if self.lm_head is None else self.lm_head.weight

    def forward(self, tokens: torch.Tensor, cache: Optional[KVCache] = None) -> torch.Tensor:
        if tokens.shape[1] > self.config.max_seq_len:
            raise ValueError(
                f"sequence of {tokens.shape[1]} tokens is longer than {self.config.max_seq_len}"
            )
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x, self.rotary, cache)
        x = self.final_norm(x)
        return F.linear(x, self.output_weight())

    def hidden_states(self, tokens: torch.Tensor) -> List[torch.Tensor]:
        states = []
        x = self.embed(tokens)
        states.append(x)
        for block in self.blocks:
            x = block(x, self.rotary)
            states.append(x)
        return states

    @torch.no_grad()
    def generate(
        self,
        prompt: torch.Tensor,
        max_new_tokens: int,
        temperature: float = 1.0,
        top_k: Optional[int] = None,
        top_p: Optional[float] = None,
        eos_id: Optional[int] = None,
    ) -> torch.Tensor:
        self.eval()
        cache = KVCache(self.config.n_layers)
        logits = self(prompt, cache)[:, -1, :]
        generated = []
        for _ in range(max_new_tokens):
            next_token = sample_next(logits, temperature, top_k, top_p)
            generated.append(next_token)
            if eos_id is not None and bool((next_token == eos_id).all()):
                break
            logits = self(next_token, cache)[:, -1, :]
        return torch.cat([prompt] + generated, dim=1)

    def num_parameters(self, exclude_embeddings: bool = False) -> int:
        total = sum(p.numel() for p in self.parameters())
        if exclude_embeddings:
            total -= self.embed.weight.numel()
        return total


def top_k_filter(logits: torch.Tensor, k: int) -> torch.Tensor:
    if k <= 0 or k >= logits.shape[-1]:
        return logits
    threshold = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < threshold, float("-inf"))


def top_p_filter(logits: torch.Tensor, p: float) -> torch.Tensor:
    if p >= 1.0:
        return logits
    sorted_logits, order = torch.sort(logits, descending=True, dim=-1)
    probs = F.softmax(sorted_logits, dim=-1)
    cumulative = probs.cumsum(dim=-1)
    # Keep the smallest prefix whose mass reaches p; the first token always survives.
    remove = cumulative - probs > p
    sorted_logits = sorted_logits.masked_fill(remove, float("-inf"))
    return sorted_logits.scatter(-1, order, sorted_logits)


def sample_next(logits, temperature: float, top_k=None, top_p=None) -> torch.Tensor:
    if temperature <= 0.0:
        return logits.argmax(dim=-1, keepdim=True)
    logits = logits / temperature
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:
        logits = top_p_filter(logits, top_p)
    probs = F.softmax(logits, dim=-1)
    return torch.multinomial(probs, num_samples=1)


def sequence_log_prob(model: CausalLM, tokens: torch.Tensor, prompt_len: int) -> torch.Tensor:
    """Sum of log-probabilities of the tokens after the prompt, per sequence."""
    logits = model(tokens[:, :-1])
    log_probs = F.log_softmax(logits.float(), dim=-1)
    picked = log_probs.gather(-1, tokens[:, 1:].unsqueeze(-1)).squeeze(-1)
    return picked[:, prompt_len - 1 :].sum(dim=-1)


def freeze_except(model: nn.Module, trainable_names) -> int:
    """Freezes every parameter whose name does not contain one of `trainable_names`."""
    count = 0
    for name, param in model.named_parameters():
        keep = any(part in name for part in trainable_names)
        param.requires_grad_(keep)
        if keep:
            count += param.numel()
    return count

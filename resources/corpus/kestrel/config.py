"""Configuration objects with validation, so a bad value fails at start-up and not mid-run."""

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Optional


@dataclass
class ModelConfig:
    vocab_size: int = 256
    d_model: int = 512
    n_layers: int = 8
    n_heads: int = 8
    n_kv_heads: Optional[int] = None
    mlp_ratio: float = 4.0
    max_seq_len: int = 2048
    rope_theta: float = 10000.0
    norm_eps: float = 1e-6
    norm_type: str = "rmsnorm"
    dropout: float = 0.0
    tie_embeddings: bool = True
    qk_norm: bool = False
    sliding_window: Optional[int] = None

    def __post_init__(self):
        if self.n_kv_heads is None:
            self.n_kv_heads = self.n_heads
        if self.d_model % self.n_heads != 0:
            raise ValueError(
                f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}"
            )
        if self.n_heads % self.n_kv_heads != 0:
            raise ValueError(
                f"n_heads={self.n_heads} is not a multiple of n_kv_heads={self.n_kv_heads}"
            )
        if self.norm_type not in ("rmsnorm", "layernorm"):
            raise ValueError(f"unknown norm_type {self.norm_type!r}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")
        if self.sliding_window is not None and self.sliding_window <= 0:
            raise ValueError("sliding_window must be positive when set")

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    @property
    def mlp_hidden(self) -> int:
        # SwiGLU keeps the parameter count of a 4x MLP with two thirds of the width.
        hidden = int(2 * self.mlp_ratio * self.d_model / 3)
        return 64 * math.ceil(hidden / 64)

    def num_parameters(self) -> int:
        embed = self.vocab_size * self.d_model
        attn = self.d_model * self.head_dim * (self.n_heads + 2 * self.n_kv_heads)
        attn += self.d_model * self.d_model
        mlp = 3 * self.d_model * self.mlp_hidden
        norms = 2 * self.d_model
        per_layer = attn + mlp + norms
        total = embed + self.n_layers * per_layer + self.d_model
        if not self.tie_embeddings:
            total += embed
        return total

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "ModelConfig":
        values = json.loads(text)
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown ModelConfig fields: {', '.join(unknown)}")
        return cls(**values)


@dataclass
class TrainConfig:
    batch_size: int = 32
    seq_len: int = 1024
    lr: float = 3e-4
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.1
    beta1: float = 0.9
    beta2: float = 0.95
    eps: float = 1e-8
    warmup_steps: int = 200
    max_steps: int = 10000
    grad_clip: float = 1.0
    grad_accum: int = 1
    label_smoothing: float = 0.0
    z_loss_weight: float = 1e-4
    eval_every: int = 500
    eval_batches: int = 20
    save_every: int = 1000
    seed: int = 1234
    precision: str = "bf16"
    patience: int = 5
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.warmup_steps >= self.max_steps:
            raise ValueError("warmup_steps must be smaller than max_steps")
        if self.grad_accum < 1:
            raise ValueError("grad_accum must be at least 1")
        if self.precision not in ("fp32", "bf16", "fp16"):
            raise ValueError(f"unknown precision {self.precision!r}")
        if not 0.0 <= self.label_smoothing < 1.0:
            raise ValueError("label_smoothing must be in [0, 1)")

    @property
    def tokens_per_step(self) -> int:
        return self.batch_size * self.seq_len * self.grad_accum

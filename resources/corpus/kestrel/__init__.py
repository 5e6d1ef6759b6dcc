"""kestrel: a compact library for training and probing small causal language models."""

from kestrel.config import ModelConfig, TrainConfig
from kestrel.model import CausalLM
from kestrel.attention import MultiHeadAttention, RotaryEmbedding
from kestrel.normalization import LayerNorm, RMSNorm
from kestrel.losses import cross_entropy_loss, z_loss
from kestrel.optim import AdamW, Lion, clip_grad_norm
from kestrel.schedules import WarmupCosine, WarmupStableDecay
from kestrel.data import ByteTokenizer, PackedDataset, batch_iterator
from kestrel.train import Trainer

__all__ = [
    "ModelConfig",
    "TrainConfig",
    "CausalLM",
    "MultiHeadAttention",
    "RotaryEmbedding",
    "LayerNorm",
    "RMSNorm",
    "cross_entropy_loss",
    "z_loss",
    "AdamW",
    "Lion",
    "clip_grad_norm",
    "WarmupCosine",
    "WarmupStableDecay",
    "ByteTokenizer",
    "PackedDataset",
    "batch_iterator",
    "Trainer",
]

__version__ = "0.3.1"

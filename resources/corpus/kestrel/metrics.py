"""Evaluation metrics and running statistics."""

import math
from typing import Dict, List

import torch
import torch.nn.functional as F


def perplexity(mean_loss: float) -> float:
    # Cap the exponent so a diverged run reports a large number instead of overflowing.
    return math.exp(min(mean_loss, 50.0))


def token_accuracy(logits: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100):
    predictions = logits.argmax(dim=-1)
    valid = targets != ignore_index
    correct = (predictions == targets) & valid
    return correct.sum().item() / max(1, valid.sum().item())


def top_k_accuracy(logits: torch.Tensor, targets: torch.Tensor, k: int = 5) -> float:
    top = logits.topk(k, dim=-1).indices
    hits = (top == targets.unsqueeze(-1)).any(dim=-1)
    return hits.float().mean().item()


def bits_per_byte(mean_loss_nats: float, tokens: int, num_bytes: int) -> float:
    return mean_loss_nats * tokens / (num_bytes * math.log(2))


def expected_calibration_error(probs: torch.Tensor, targets: torch.Tensor, bins: int = 15):
    confidence, predicted = probs.max(dim=-1)
    correct = (predicted == targets).float()
    edges = torch.linspace(0.0, 1.0, bins + 1)
    ece = torch.zeros(())
    for i in range(bins):
        in_bin = (confidence > edges[i]) & (confidence <= edges[i + 1])
        if in_bin.any():
            gap = (confidence[in_bin].mean() - correct[in_bin].mean()).abs()
            ece += gap * in_bin.float().mean()
    return ece.item()


def predictive_entropy(logits: torch.Tensor) -> torch.Tensor:
    log_probs = F.log_softmax(logits.float(), dim=-1)
    return -(log_probs.exp() * log_probs).sum(dim=-1)


class RunningMean:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value: float, weight: int = 1):
        self.total += value * weight
        self.count += weight

    @property
    def value(self) -> float:
        return self.total / self.count if self.count > 0 else float("nan")


class ExponentialAverage:
    """Bias-corrected exponential moving average, as Adam corrects its moments."""

    def __init__(self, beta: float = 0.98):
        self.beta = beta
        self.average = 0.0
        self.steps = 0

    def update(self, value: float) -> float:
        self.steps += 1
        self.average = self.beta * self.average + (1.0 - self.beta) * value
        return self.average / (1.0 - self.beta ** self.steps)


class Welford:
    """Streaming mean and variance."""

    def __init__(self):
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def update(self, x: float):
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)

    @property
    def variance(self) -> float:
        return self.m2 / (self.n - 1) if self.n > 1 else 0.0


def summarize(history: Dict[str, List[float]]) -> Dict[str, float]:
    out = {}
    for name, values in history.items():
        if not values:
            continue
        out[name + "/last"] = values[-1]
        out[name + "/min"] = min(values)
        out[name + "/mean"] = sum(values) / len(values)
    return out


def exact_match(prediction: str, reference: str) -> float:
    return float(prediction.strip().lower() == reference.strip().lower())


def longest_common_prefix(a: List[int], b: List[int]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n

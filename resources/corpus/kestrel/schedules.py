"""Learning-rate schedules as plain callables from step to learning rate."""

import math


class Constant:
    def __init__(self, lr: float):
        self.lr = lr

    def __call__(self, step: int) -> float:
        return self.lr


class WarmupCosine:
    """Linear warm-up to the peak, then a cosine decay to min_ratio * peak."""

    def __init__(self, peak_lr: float, warmup: int, total: int, min_ratio: float = 0.1):
        if warmup >= total:
            raise ValueError("warm-up must end before the schedule does")
        self.peak_lr = peak_lr
        self.warmup = warmup
        self.total = total
        self.min_lr = peak_lr * min_ratio

    def __call__(self, step: int) -> float:
        if step < self.warmup:
            return self.peak_lr * (step + 1) / self.warmup
        if step >= self.total:
            return self.min_lr
        progress = (step - self.warmup) / (self.total - self.warmup)
        cosine = 0.5 * (1.0 + math.cos(math.pi * progress))
        return self.min_lr + (self.peak_lr - self.min_lr) * cosine


class WarmupLinear:
    def __init__(self, peak_lr: float, warmup: int, total: int):
        self.peak_lr = peak_lr
        self.warmup = warmup
        self.total = total

    def __call__(self, step: int) -> float:
        if step < self.warmup:
            return self.peak_lr * (step + 1) / self.warmup
        remaining = max(0, self.total - step)
        return self.peak_lr * remaining / (self.total - self.warmup)


class InverseSqrt:
    """Warm-up, then decay proportional to 1/sqrt(step)."""

    def __init__(self, peak_lr: float, warmup: int):
        self.peak_lr = peak_lr
        self.warmup = warmup

    def __call__(self, step: int) -> float:
        step = step + 1
        if step <= self.warmup:
            return self.peak_lr * step / self.warmup
        return self.peak_lr * math.sqrt(self.warmup / step)


class WarmupStableDecay:
    """Warm-up, a long constant phase, and a short final decay (the last decay_fraction)."""

    def __init__(self, peak_lr: float, warmup: int, total: int, decay_fraction: float = 0.2):
        self.peak_lr = peak_lr
        self.warmup = warmup
        self.total = total
        self.decay_start = int(total * (1.0 - decay_fraction))

    def __call__(self, step: int) -> float:
        if step < self.warmup:
            return self.peak_lr * (step + 1) / self.warmup
        if step < self.decay_start:
            return self.peak_lr
        progress = (step - self.decay_start) / max(1, self.total - self.decay_start)
        return self.peak_lr * max(0.0, 1.0 - progress)


def schedule_values(schedule, total: int, every: int = 1):
    """The learning rates a schedule gives, for plotting."""
    return [schedule(step) for step in range(0, total, every)]


def steps_for_tokens(tokens: int, tokens_per_step: int) -> int:
    return math.ceil(tokens / tokens_per_step)

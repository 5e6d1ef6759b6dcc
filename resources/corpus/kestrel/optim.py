"""Optimisers written out step by step: SGD with momentum, AdamW and Lion, plus gradient
clipping and the parameter groups that decide what gets weight decay."""

import math
from typing import Dict, Iterable, List

import torch


def parameter_groups(model, weight_decay: float) -> List[Dict]:
    """Matrices decay; biases, norm gains and embeddings do not."""
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if param.dim() < 2 or "norm" in name or "embed" in name:
            no_decay.append(param)
        else:
            decay.append(param)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]


class Optimizer:
    def __init__(self, groups, lr: float):
        if isinstance(groups, torch.Tensor):
            raise TypeError("pass an iterable of parameters or of parameter groups")
        groups = list(groups)
        if groups and not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.groups = []
        for group in groups:
            group = dict(group)
            group.setdefault("lr", lr)
            group.setdefault("weight_decay", 0.0)
            group["params"] = list(group["params"])
            self.groups.append(group)
        self.state = {}
        self.step_count = 0

    def zero_grad(self):
        for group in self.groups:
            for p in group["params"]:
                p.grad = None

    def set_lr(self, lr: float):
        for group in self.groups:
            group["lr"] = lr


class SGD(Optimizer):
    def __init__(self, params, lr: float = 0.1, momentum: float = 0.9, nesterov: bool = False):
        super().__init__(params, lr)
        self.momentum = momentum
        self.nesterov = nesterov

    @torch.no_grad()
    def step(self):
        self.step_count += 1
        for group in self.groups:
            lr = group["lr"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                if group["weight_decay"] > 0.0:
                    grad = grad + group["weight_decay"] * p
                buf = self.state.get(p)
                if buf is None:
                    buf = grad.clone()
                    self.state[p] = buf
                else:
                    buf.mul_(self.momentum).add_(grad)
                update = grad + self.momentum * buf if self.nesterov else buf
                p -= lr * update


class AdamW(Optimizer):
    def __init__(self, params, lr=3e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1):
        super().__init__(params, lr)
        self.beta1, self.beta2 = betas
        self.eps = eps
        for group in self.groups:
            group.setdefault("weight_decay", weight_decay)

    @torch.no_grad()
    def step(self):
        self.step_count += 1
        t = self.step_count
        bias1 = 1.0 - self.beta1 ** t
        bias2 = 1.0 - self.beta2 ** t
        for group in self.groups:
            lr = group["lr"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state.setdefault(
                    p, {"m": torch.zeros_like(p), "v": torch.zeros_like(p)}
                )
                m, v = state["m"], state["v"]
                m.mul_(self.beta1).add_(p.grad, alpha=1.0 - self.beta1)
                v.mul_(self.beta2).addcmul_(p.grad, p.grad, value=1.0 - self.beta2)
                # Decoupled weight decay: shrink the weights directly, not through the gradient.
                if group["weight_decay"] > 0.0:
                    p.mul_(1.0 - lr * group["weight_decay"])
                step_size = lr / bias1
                denom = (v / bias2).sqrt().add_(self.eps)
                p.addcdiv_(m, denom, value=-step_size)


class Lion(Optimizer):
    """Sign of an interpolated momentum as the update."""

    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        super().__init__(params, lr)
        self.beta1, self.beta2 = betas
        for group in self.groups:
            group.setdefault("weight_decay", weight_decay)

    @torch.no_grad()
    def step(self):
        self.step_count += 1
        for group in self.groups:
            lr = group["lr"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                m = self.state.setdefault(p, torch.zeros_like(p))
                update = torch.lerp(p.grad, m, self.beta1).sign()
                if group["weight_decay"] > 0.0:
                    p.mul_(1.0 - lr * group["weight_decay"])
                p.add_(update, alpha=-lr)
                m.mul_(self.beta2).add_(p.grad, alpha=1.0 - self.beta2)


def global_grad_norm(params: Iterable[torch.Tensor]) -> torch.Tensor:
    norms = [p.grad.detach().float().norm(2) for p in params if p.grad is not None]
    if not norms:
        return torch.tensor(0.0)
    return torch.linalg.vector_norm(torch.stack(norms), 2)


def clip_grad_norm(params, max_norm: float, eps: float = 1e-6) -> float:
    """Scales all gradients together so their global norm is at most max_norm."""
    params = [p for p in params if p.grad is not None]
    total = global_grad_norm(params)
    if total > max_norm:
        factor = max_norm / (total + eps)
        for p in params:
            p.grad.mul_(factor)
    return float(total)


def clip_grad_value(params, limit: float):
    for p in params:
        if p.grad is not None:
            p.grad.clamp_(min=-limit, max=limit)


class EMA:
    """Exponential moving average of the weights, for evaluation."""

    def __init__(self, model, decay: float = 0.999):
        self.decay = decay
        self.shadow = {name: p.detach().clone() for name, p in model.named_parameters()}

    @torch.no_grad()
    def update(self, model):
        for name, p in model.named_parameters():
            shadow = self.shadow[name]
            shadow.copy_(torch.lerp(shadow, p.detach(), 1.0 - self.decay))

    @torch.no_grad()
    def copy_to(self, model):
        for name, p in model.named_parameters():
            p.copy_(self.shadow[name])


def count_steps_to_threshold(losses: List[float], threshold: float) -> int:
    """Index of the first loss below `threshold`, or -1."""
    for step in range(len(losses)):
        if losses[step] < threshold:
            return step
    return -1


def lr_range_test_step(step: int, total: int, min_lr: float, max_lr: float) -> float:
    ratio = step / max(1, total - 1)
    return min_lr * math.pow(max_lr / min_lr, ratio)

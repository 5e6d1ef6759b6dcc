"""Losses for language modelling and for the auxiliary objectives the trainer can add."""

from typing import Optional

import torch
import torch.nn.functional as F


def cross_entropy_loss(
    logits: torch.Tensor,
    targets: torch.Tensor,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    """Token-level cross entropy, averaged over the positions that are not ignored."""
    vocab = logits.shape[-1]
    flat_logits = logits.reshape(-1, vocab).float()
    flat_targets = targets.reshape(-1)
    return F.cross_entropy(
        flat_logits, flat_targets, ignore_index=ignore_index, label_smoothing=label_smoothing
    )


def manual_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """The same quantity written out, for checking fused kernels against."""
    log_probs = F.log_softmax(logits.float(), dim=-1)
    picked = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    loss = -picked
    return loss.mean()


def z_loss(logits: torch.Tensor, weight: float = 1e-4) -> torch.Tensor:
    """Penalises the log-partition function so logits do not drift to large magnitudes."""
    log_z = torch.logsumexp(logits.float(), dim=-1)
    return weight * log_z.pow(2).mean()


def smoothed_targets(targets: torch.Tensor, vocab: int, smoothing: float) -> torch.Tensor:
    off_value = smoothing / (vocab - 1)
    dist = torch.full((*targets.shape, vocab), off_value, device=targets.device)
    dist.scatter_(-1, targets.unsqueeze(-1), 1.0 - smoothing)
    return dist


def soft_cross_entropy(logits: torch.Tensor, target_dist: torch.Tensor) -> torch.Tensor:
    log_probs = F.log_softmax(logits.float(), dim=-1)
    return -(target_dist * log_probs).sum(dim=-1).mean()


def kl_divergence(student_logits, teacher_logits, temperature: float = 1.0) -> torch.Tensor:
    """KL(teacher || student) at a temperature, scaled by T^2 as in distillation."""
    student = F.log_softmax(student_logits / temperature, dim=-1)
    teacher = F.softmax(teacher_logits / temperature, dim=-1)
    kl = F.kl_div(student, teacher, reduction="batchmean")
    return kl * temperature * temperature


def focal_loss(logits: torch.Tensor, targets: torch.Tensor, gamma: float = 2.0) -> torch.Tensor:
    log_probs = F.log_softmax(logits.float(), dim=-1)
    log_pt = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    pt = log_pt.exp()
    weight = (1.0 - pt).pow(gamma)
    return -(weight * log_pt).mean()


def info_nce(queries: torch.Tensor, keys: torch.Tensor, temperature: float = 0.07) -> torch.Tensor:
    """Contrastive loss where queries[i] matches keys[i] and every other key is a negative."""
    queries = F.normalize(queries, dim=-1)
    keys = F.normalize(keys, dim=-1)
    logits = torch.matmul(queries, keys.t()) / temperature
    labels = torch.arange(queries.shape[0], device=queries.device)
    return F.cross_entropy(logits, labels)


def masked_mean(values: torch.Tensor, mask: torch.Tensor, dim: Optional[int] = None):
    mask = mask.to(values.dtype)
    if dim is None:
        return (values * mask).sum() / mask.sum().clamp(min=1.0)
    return (values * mask).sum(dim=dim) / mask.sum(dim=dim).clamp(min=1.0)


def span_loss(logits: torch.Tensor, tokens: torch.Tensor, start: int, length: int) -> torch.Tensor:
    """Next-token loss over tokens[start + 1 : start + length + 1] only."""
    end = start + length
    span_logits = logits[:, start:end, :]
    span_targets = tokens[:, start + 1 : end + 1]
    return cross_entropy_loss(span_logits, span_targets)


def sequence_nll(logits: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Negative log-likelihood summed over each sequence's unmasked positions."""
    log_probs = F.log_softmax(logits.float(), dim=-1)
    picked = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return -(picked * mask).sum(dim=-1)


def margin_ranking(chosen: torch.Tensor, rejected: torch.Tensor, margin: float = 0.5):
    """Pairwise ranking: the chosen score must exceed the rejected one by `margin`."""
    target = torch.ones_like(chosen)
    return F.margin_ranking_loss(chosen, rejected, target, margin=margin)


def preference_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, beta: float = 0.1):
    """Direct preference optimisation on sequence log-probabilities."""
    chosen_ratio = policy_chosen - ref_chosen
    rejected_ratio = policy_rejected - ref_rejected
    logits = beta * (chosen_ratio - rejected_ratio)
    return -F.logsigmoid(logits).mean()


def entropy_bonus(logits: torch.Tensor) -> torch.Tensor:
    probs = F.softmax(logits.float(), dim=-1)
    log_probs = F.log_softmax(logits.float(), dim=-1)
    return -(probs * log_probs).sum(dim=-1).mean()

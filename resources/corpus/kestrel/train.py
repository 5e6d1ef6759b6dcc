"""The training loop: gradient accumulation, clipping, schedules, evaluation, checkpoints and
early stopping."""

import json
import os
import time
from typing import Callable, Dict, Optional

import torch

from kestrel.losses import cross_entropy_loss, z_loss
from kestrel.metrics import RunningMean, perplexity
from kestrel.optim import AdamW, clip_grad_norm, parameter_groups
from kestrel.schedules import WarmupCosine


class Trainer:
    def __init__(self, model, config, train_batches, eval_batches=None, log: Callable = print):
        self.model = model
        self.config = config
        self.train_batches = train_batches
        self.eval_batches = eval_batches
        self.log = log
        groups = parameter_groups(model, config.weight_decay)
        self.optimizer = AdamW(
            groups, lr=config.lr, betas=(config.beta1, config.beta2), eps=config.eps
        )
        self.schedule = WarmupCosine(
            config.lr, config.warmup_steps, config.max_steps, config.min_lr_ratio
        )
        self.step = 0
        self.best_eval = float("inf")
        self.bad_evals = 0
        self.history: Dict[str, list] = {"loss": [], "lr": [], "grad_norm": [], "eval": []}

    def loss_on(self, inputs, targets):
        logits = self.model(inputs)
        loss = cross_entropy_loss(logits, targets, label_smoothing=self.config.label_smoothing)
        if self.config.z_loss_weight > 0.0:
            loss = loss + z_loss(logits, self.config.z_loss_weight)
        return loss

    def train_step(self) -> float:
        self.model.train()
        lr = self.schedule(self.step)
        self.optimizer.set_lr(lr)
        total = 0.0
        for micro in range(self.config.grad_accum):
            inputs, targets = next(self.train_batches)
            loss = self.loss_on(inputs, targets) / self.config.grad_accum
            loss.backward()
            total += loss.item()
        params = [p for group in self.optimizer.groups for p in group["params"]]
        grad_norm = clip_grad_norm(params, self.config.grad_clip)
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.history["loss"].append(total)
        self.history["lr"].append(lr)
        self.history["grad_norm"].append(grad_norm)
        self.step += 1
        return total

    @torch.no_grad()
    def evaluate(self) -> float:
        if self.eval_batches is None:
            return float("nan")
        self.model.eval()
        mean = RunningMean()
        for index, (inputs, targets) in enumerate(self.eval_batches()):
            if index >= self.config.eval_batches:
                break
            mean.update(self.loss_on(inputs, targets).item(), weight=inputs.shape[0])
        self.history["eval"].append(mean.value)
        return mean.value

    def should_stop(self, eval_loss: float) -> bool:
        """Early stopping: too many evaluations in a row without improvement."""
        if eval_loss < self.best_eval:
            self.best_eval = eval_loss
            self.bad_evals = 0
            return False
        self.bad_evals += 1
        return self.bad_evals >= self.config.patience

    def save(self, folder: str):
        os.makedirs(folder, exist_ok=True)
        torch.save(self.model.state_dict(), os.path.join(folder, "model.pt"))
        state = {"step": self.step, "best_eval": self.best_eval, "history": self.history}
        with open(os.path.join(folder, "trainer.json"), "w") as f:
            json.dump(state, f)

    def load(self, folder: str):
        self.model.load_state_dict(torch.load(os.path.join(folder, "model.pt")))
        with open(os.path.join(folder, "trainer.json")) as f:
            state = json.load(f)
        self.step = state["step"]
        self.best_eval = state["best_eval"]
        self.history = state["history"]

    def fit(self, checkpoint_dir: Optional[str] = None):
        start = time.time()
        while self.step < self.config.max_steps:
            loss = self.train_step()
            if self.step % 50 == 0:
                elapsed = time.time() - start
                self.log(f"step {self.step} loss {loss:.4f} lr {self.history['lr'][-1]:.2e} "
                         f"({elapsed:.0f}s)")
            if self.step % self.config.eval_every == 0:
                eval_loss = self.evaluate()
                self.log(f"eval loss {eval_loss:.4f} ppl {perplexity(eval_loss):.2f}")
                if self.should_stop(eval_loss):
                    self.log("no improvement; stopping early")
                    break
            if checkpoint_dir is not None and self.step % self.config.save_every == 0:
                self.save(checkpoint_dir)
        return self.history


def loss_scale_update(scale: float, found_inf: bool, growth_interval: int, good_steps: int):
    """Dynamic loss scaling for fp16: halve on overflow, double after a run of good steps."""
    if found_inf:
        return max(scale / 2.0, 1.0), 0
    good_steps += 1
    if good_steps >= growth_interval:
        return scale * 2.0, 0
    return scale, good_steps


def tokens_seen(step: int, config) -> int:
    return step * config.tokens_per_step

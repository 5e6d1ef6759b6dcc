#pragma once
// The outer training loop: AdamW (decay on matrices only), linear warm-up then cosine, global
// gradient clipping, fp32 on the CPU and fp32 master weights with bf16 autocast on CUDA. Progress
// and every step's loss go out as engine events (the CLI writes them into a session), the curve
// into <out>/curve.json, and checkpoints (train_checkpoint.h) every recipe.checkpoint_every steps
// and at the end. A resumed run continues from the latest checkpoint and reproduces the curve an
// uninterrupted run would have drawn.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/events.h"
#include "core/train/train_checkpoint.h"
#include "core/train/train_recipe.h"

namespace studio::train {

struct TrainerOptions {
  std::string out_dir;
  // Continue from the latest checkpoint in out_dir (a fresh start when there is none). Without
  // it, an out_dir that already holds checkpoints is refused rather than mixed with a new run.
  bool resume = false;
  std::function<void(const engine::Event&)> on_event;  // called on the training thread
  std::function<bool()> cancelled;  // checked between steps; a cancelled run saves a checkpoint
  // Stop (with a checkpoint) once this many steps are done in total; −1: run the recipe's steps.
  std::int64_t stop_at_step = -1;
  // Stop (with a checkpoint) once this call has trained this many seconds; ≤ 0: no limit.
  double max_seconds = -1;
};

struct TrainOutcome {
  std::int64_t steps_done = 0;
  std::int64_t resumed_from = 0;  // steps already done when this call started
  bool finished = false;          // all of the recipe's steps are done
  std::string last_checkpoint;    // folder of the last checkpoint written
  std::vector<CurvePoint> curve;  // the whole curve so far, earlier sessions included
};

// Throws studio::Error for a bad recipe, an unusable out_dir, a checkpoint that does not match the
// recipe, or a device that is not there.
TrainOutcome runTraining(const TrainRecipe& recipe, const TrainerOptions& options);

}  // namespace studio::train

#pragma once
// A training recipe (`studio-cli train --recipe FILE`): the architecture, the data mixture, the
// optimiser and its schedule, the seed and where the work runs. Everything that decides the curve
// is here, so the same recipe and seed give the same run.
//
// {
//   "model": { config.json fields } | "model_config": "path/to/config.json",
//   "data": {"seq_len": 1024, "context_loss_weight": 0.1, "same_source_per_batch": false,
//            "mixture": [
//     {"task": "niah", "weight": 1, "params": {}, "ranges": {"chars": [100, 600]}},
//     {"text_files": ["a.txt"], "weight": 0.5, "window": 512}]},
//   "optimizer": {"lr": 1e-3, "min_lr_ratio": 0.1, "warmup_steps": 50, "weight_decay": 0.1,
//                 "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "clip": 1.0},
//   "steps": 1000, "batch_size": 8, "seed": 1, "device": "cpu", "dtype": "f32", "threads": 0,
//   "checkpoint_every": 100, "keep_checkpoints": 2, "log_every": 10,
//   "init_from": "checkpoint/folder" | "qk_norm_init": 2.0,
//   "objective": "ntp" | "refine",
//   "refine": {"preset": "midtrain" | "posttrain" | "ttt", "nested": false, <RefineConfig fields>},
//   "sr_ttt": {"stage": "backbone" | "cache" | "gates", ...} (SrTttStageRecipe)
// }

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/model/model_config.h"
#include "core/train/refine_config.h"

namespace studio::train {

// One source of the mixture: a task generator (items drawn with fresh seeds, parameters fixed or
// drawn uniformly from ranges) or text files (windows of seq_len tokens).
struct MixtureSource {
  double weight = 1.0;
  std::string task;  // a generator's name; empty for text files
  nlohmann::json params = nlohmann::json::object();
  // Parameter -> [lo, hi]: an int parameter is drawn uniformly in [lo, hi] (inclusive), a float
  // one in [lo, hi).
  std::map<std::string, std::pair<double, double>> ranges;
  std::vector<std::string> text_files;
  // Text files: tokens per example (a random window), at most seq_len; 0 means seq_len. Short
  // windows keep text cheap beside long task items, which set seq_len.
  std::int64_t window = 0;

  std::string label() const;  // the task name or "text"
};

struct DataRecipe {
  std::int64_t seq_len = 1024;  // longest example in tokens; longer task items are redrawn
  // Loss weight of the prompt's tokens (the answer's are 1): a little language modelling of the
  // context (balances, background) next to the answer.
  double context_loss_weight = 0.0;
  // Draw one source per step for the whole batch rather than one per example: batches of items of
  // similar length, so less padding is computed (short niah next to long tx_log items wastes most
  // of a batch).
  bool same_source_per_batch = false;
  std::vector<MixtureSource> mixture;
};

struct OptimizerRecipe {
  double lr = 1e-3;
  double min_lr_ratio = 0.1;  // the cosine ends at lr · min_lr_ratio
  std::int64_t warmup_steps = 0;
  double weight_decay = 0.1;  // on matrices only; norms and biases are not decayed
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double clip = 1.0;  // global gradient norm; 0 turns clipping off
};

// ReFINE as a training objective (paper 003 §4.2–4.3; core/train/refine_step.h). A preset sets
// every field of `config` and the block may override any of them; its lr is the schedule's peak
// (optimizer.lr is refused next to it, so that one number decides the learning rate).
//   - nested false (midtrain's and ttt's default): one step per batch on
//     λ_SFT·(the recipe's weighted next-token loss) + λ_RL·(L_NSP of each sequence, averaged),
//     the rollouts drawn on each whole example from the batch's own forward;
//   - nested true (posttrain's default), the paper's nested learning: first a ReFINE step on each
//     example's prompt alone (λ_SFT·L_NTP + λ_RL·L_NSP over the prompt), then the recipe's usual
//     step on the batch (its loss on the answer), two optimizer steps per training step.
struct RefineRecipe {
  std::string preset;
  RefineConfig config;
  bool nested = false;
};

// SR-TTT's two-stage curriculum (SPEC §5; sr_ttt_v2.py's train_stage1/train_stage2), for a model
// of model_type sr_ttt. `stage`:
//   - "backbone" (v2's stage 1): every weight trains, the cache is off (the block's output is the
//     TTT path alone); the gates start at 0, so the checkpoint reads as the backbone alone;
//   - "cache" (v2's stage 2, needs init_from): the backbone is frozen; the gates (reset to
//     alpha_init) and the cache read's W_qc, W_kc, W_vc, W_o train with the cache on, on the
//     recipe's loss + answer_loss_weight·(the answers' mean loss) + oracle_weight·(v2's oracle
//     loss, −log of the read weight the answer queries put on the cached needle tokens), the
//     items' evidence forced into the cache, and v2's distance curriculum on niah-like items;
//   - "gates" (the paper's stage 2, needs init_from): only the gates train, on the recipe's loss,
//     with the cache on and nothing forced.
// {"stage": "cache", "oracle_weight": 1.0, "answer_loss_weight": 1.0, "force_insert": true,
//  "curriculum": true, "curriculum_min_gap": 128, "curriculum_random_fraction": 0.2,
//  "curriculum_anneal_fraction": 0.8}
struct SrTttStageRecipe {
  std::string stage;  // empty: not staged (every weight trains, the cache on)
  double oracle_weight = 0.0;
  double answer_loss_weight = 0.0;
  bool force_insert = false;
  // v2's V2-4: on items with a needle depth, the needle-to-question gap (in characters of
  // background) anneals from curriculum_min_gap to the whole background over the first
  // curriculum_anneal_fraction of the steps (×U(0.8, 1.2)); curriculum_random_fraction of the
  // items keep the recipe's depth.
  bool curriculum = false;
  std::int64_t curriculum_min_gap = 128;
  double curriculum_random_fraction = 0.2;
  double curriculum_anneal_fraction = 0.8;

  bool cacheOn() const { return stage != "backbone"; }
};

struct TrainRecipe {
  model::ModelConfig model;
  DataRecipe data;
  OptimizerRecipe optimizer;
  std::int64_t steps = 100;
  std::int64_t batch_size = 8;
  std::uint64_t seed = 1;
  std::string device = "cpu";
  // "f32", or "bf16" (CUDA only: fp32 master weights, bf16 autocast); empty: f32 on the CPU,
  // bf16 on CUDA.
  std::string dtype;
  int threads = 0;  // torch intra-op threads; 0 keeps the process's setting
  std::int64_t checkpoint_every = 100;  // 0: only at the end
  std::int64_t keep_checkpoints = 2;    // older checkpoint folders are removed; 0 keeps all
  std::int64_t log_every = 10;
  // A checkpoint folder whose weights start the run instead of random ones (a second stage of a
  // curriculum, or fine-tuning); its architecture must be `model`'s. Relative to the working
  // directory, like the trainer's --out. Empty: random weights from `seed`.
  std::string init_from;
  // The starting value of every q_norm and k_norm weight when the weights are random (1 is
  // Qwen3's own). With q/k RMSNorm an attention logit is g_q·g_k·√head_dim·cos(q, k), so at 1 a
  // head can put at most e^{2√d} ≈ e^11 (d = 32) more weight on its best key than on its worst,
  // and in practice far less: over thousands of keys no head is sharp until Adam has grown the
  // gains, a step of about lr at a time. Starting them higher (QKNorm, Henry et al. 2020, learns
  // this scale from log2(L² − L)) lets heads be sharp from the first step; on the demo model's
  // copying texts a gain of 2 delayed learning rather than speeding it (docs/demo-model.md).
  double qk_norm_init = 1.0;
  // "ntp" (the default): the weighted next-token loss; "refine": ReFINE with `refine`.
  std::string objective = "ntp";
  RefineRecipe refine;  // read with objective "refine"
  SrTttStageRecipe sr_ttt;  // the "sr_ttt" block (model_type sr_ttt only)

  nlohmann::json raw;  // the recipe as read (stored with the run and the checkpoints)

  // Throws studio::Error (Config) naming `file` and the field for anything missing, mistyped or
  // out of range, and for unknown keys (a typo must not silently train something else). Task
  // names are checked when the data is built (TrainingData). Relative paths (model_config,
  // text_files) are resolved against `base_dir`.
  static TrainRecipe fromJson(const nlohmann::json& json, const std::string& file = "recipe",
                              const std::string& base_dir = ".");
};

// Reads and parses a recipe file. Throws studio::Error (Io, Format, Config) naming the file.
TrainRecipe loadRecipe(const std::string& path);

}  // namespace studio::train

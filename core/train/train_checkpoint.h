#pragma once
// A training checkpoint: a Hugging Face folder that loadModel reads as it is (config.json,
// model.safetensors, tokenizer.json) plus what resuming needs next to it: optimizer.safetensors
// (AdamW's moments and step counts by parameter name, optimizer_state.h; checkpoints of earlier
// versions hold torch::save's optimizer.pt, still read) and trainer_state.json (steps done, seed, recipe, curve so far). The
// data needs no saved RNG state: each step's batch is a function of (seed, step), see
// training_data.h.
//
// Folders are <out>/checkpoint-<step, 6 digits>; each is written as <name>.tmp and renamed when
// complete, so a crash never leaves a half-written checkpoint that looks finished.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace studio::train {

// One logged step of the curve.
struct CurvePoint {
  std::int64_t step = 0;       // 1-based: the number of optimizer steps done
  double loss = 0;             // the weighted objective of the step's batch
  double answer_loss = 0;      // mean cross-entropy of the answer tokens alone
  double learning_rate = 0;
  double grad_norm = 0;        // before clipping
  std::int64_t tokens = 0;     // input tokens of the batch (padding excluded)
  double seconds = 0;          // wall time of the run so far (earlier sessions included)
  // A stage's own measures (SR-TTT stage 2: oracle_loss, containment, ...); "metrics" in JSON.
  std::map<std::string, double> metrics;

  nlohmann::json toJson() const;
  static CurvePoint fromJson(const nlohmann::json& json);
};

struct TrainingState {
  std::int64_t step = 0;  // optimizer steps done
  std::uint64_t seed = 0;
  nlohmann::json recipe;
  std::vector<CurvePoint> curve;
  double seconds = 0;

  nlohmann::json toJson() const;
  // Throws studio::Error (Format) naming `file` and the field.
  static TrainingState fromJson(const nlohmann::json& json, const std::string& file);
};

std::string checkpointFolderName(std::int64_t step);

// The finished checkpoint folder with the most steps in `out_dir`, if any.
std::optional<std::string> latestCheckpoint(const std::string& out_dir);

// Every finished checkpoint folder in `out_dir`, oldest first.
std::vector<std::string> listCheckpoints(const std::string& out_dir);

// Reads <dir>/trainer_state.json. Throws studio::Error (Io, Format).
TrainingState readTrainingState(const std::string& dir);

// The files of a training checkpoint beyond the model folder.
extern const char* const kOptimizerFile;        // "optimizer.safetensors" (optimizer_state.h)
extern const char* const kLegacyOptimizerFile;  // "optimizer.pt": torch::save's, before
extern const char* const kTrainerStateFile;  // "trainer_state.json"
extern const char* const kCurveFile;         // "curve.json" in the output folder

}  // namespace studio::train

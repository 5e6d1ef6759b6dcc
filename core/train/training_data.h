#pragma once
// The examples a recipe trains on. Task items become exactly the text the engine shows the model
// at inference (the App. 11 answer prompt) followed by the reference answer, a newline and the
// end-of-text token; the answer's tokens carry loss weight 1, the prompt's the recipe's
// context_loss_weight. Text files give windows of seq_len tokens, every token weighted 1.
//
// Every example is a pure function of (recipe seed, step, slot): a resumed run sees the same data
// as an uninterrupted one, with no sampler state to save. Task items are drawn with seeds that
// have bit 62 set (trainingItemSeed), so evaluation on seeds below 2^62 never meets a training
// item.

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/tokenizer/tokenizer.h"
#include "core/train/train_recipe.h"

namespace studio::task {
class TaskGenerator;
struct TaskItem;
}

namespace studio::train {

struct TrainingExample {
  std::vector<std::int64_t> ids;
  // weights[i]: loss weight of predicting ids[i] from ids[0..i-1]; weights[0] is 0.
  std::vector<float> weights;
  std::string source;        // the mixture source's label
  std::int64_t answer_from = 1;  // the answer's first token (1 for a text window)
  // Task items: the positions in ids of the tokens of the item's evidence (its targets), and,
  // where the answer begins with an evidence span's tokens verbatim (a needle's code), the pairs
  // (query predicting answer token i = answer_from − 1 + i, the evidence token it copies).
  std::vector<std::int64_t> evidence;
  std::vector<std::int64_t> copy_queries;
  std::vector<std::int64_t> copy_sources;
};

// v2's distance curriculum (SR-TTT stage 2, V2-4) on task sources with an Int "chars" and a Float
// "depth" parameter (niah): for an item of step s (0-based) of `steps`, unless a uniform draw
// falls below random_fraction, gap = ⌊(min_gap + f·(chars − min_gap))·U(0.8, 1.2)⌋ with
// f = min(1, (s + 1) / max(1, ⌊anneal_fraction·steps⌋)), and depth = clamp(1 − gap/chars, 0, 1):
// the needle sits about gap characters of background before the question.
struct NeedleGapCurriculum {
  bool on = false;
  std::int64_t steps = 1;
  std::int64_t min_gap = 128;
  double random_fraction = 0.2;
  double anneal_fraction = 0.8;

  // The depth for an item of `chars` at `step`, from two uniform draws in [0, 1); nullopt: keep
  // the recipe's depth.
  std::optional<double> depth(std::int64_t step, std::int64_t chars, double u_mix,
                              double u_scale) const;
};

struct TrainingBatch {
  torch::Tensor inputs;   // [B, T] int64: ids[0..T-1], right-padded with the end-of-text id
  torch::Tensor targets;  // [B, T] int64: ids[1..T]
  torch::Tensor weights;  // [B, T] float32: the targets' loss weights, 0 on padding
  torch::Tensor answer_mask;  // [B, T] bool: answer targets (every target of a text window)
  std::map<std::string, std::int64_t> sources;  // examples per source label
  std::int64_t tokens = 0;  // input tokens, padding excluded
  std::vector<TrainingExample> examples;  // the rows, unpadded (ReFINE works per sequence)
};

// A task item as the trainer sees it: the engine's answer prompt (App. 11) followed by the first
// reference answer, a newline and `end_of_text`; the answer's tokens (newline and end-of-text
// included) weigh 1, the prompt's `context_loss_weight`. Throws studio::Error (Config) for an item
// without a reference answer, naming `source`.
TrainingExample answerExample(const tokenizer::Tokenizer& tokenizer, const task::TaskItem& item,
                              std::int64_t end_of_text, double context_loss_weight,
                              const std::string& source);

// The seed of the task item in (step, slot), attempt `attempt` (items longer than seq_len are
// redrawn). Always >= 2^62.
std::uint64_t trainingItemSeed(std::uint64_t recipe_seed, std::int64_t step, std::int64_t slot,
                               int attempt);

class TrainingData {
 public:
  // Throws studio::Error (Config) for an unknown task or a parameter the generator refuses, and
  // (Io) for a text file that cannot be read or is shorter than seq_len + 1 tokens. The task
  // registry must be filled (plugins::registerBuiltinPlugins) before.
  TrainingData(const DataRecipe& recipe, std::shared_ptr<const tokenizer::Tokenizer> tokenizer,
               std::int64_t end_of_text_id, std::uint64_t seed,
               NeedleGapCurriculum curriculum = {});

  TrainingExample example(std::int64_t step, std::int64_t slot) const;
  TrainingBatch batch(std::int64_t step, std::int64_t batch_size) const;

 private:
  struct Source {
    MixtureSource recipe;
    const task::TaskGenerator* generator = nullptr;
    std::vector<std::vector<std::int64_t>> texts;  // text files, tokenized
  };

  TrainingExample taskExample(const Source& source, std::int64_t step, std::int64_t slot) const;
  TrainingExample textExample(const Source& source, std::int64_t step, std::int64_t slot) const;

  DataRecipe m_recipe;
  std::shared_ptr<const tokenizer::Tokenizer> m_tokenizer;
  std::int64_t m_end_of_text = 0;
  std::uint64_t m_seed = 0;
  std::vector<Source> m_sources;
  std::vector<double> m_cumulative;  // cumulative normalised weights of m_sources
  NeedleGapCurriculum m_curriculum;
};

}  // namespace studio::train

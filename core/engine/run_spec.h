#pragma once
// Everything a person (or the CLI, or a sweep) chooses for one run. It is stored whole, as JSON,
// in the session, so a run can be reproduced from its row.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/span.h"

namespace studio::engine {

// The paper's answer length: every method has "the same prompt, output length (128 tokens)" (qTTT
// App. 14).
inline constexpr std::int64_t kPaperAnswerTokens = 128;

struct RunSpec {
  // The model: a Hugging Face folder, and where and how to run it.
  std::string model_path;
  std::string device = "cpu";  // "cpu" or "cuda"
  std::string dtype;           // "f32", "bf16", "f16"; empty: the device's default

  // The document and the question.
  std::string document_source;  // a path, "text", or "task:<name>" for generated items
  std::string document_text;    // UTF-8
  std::string question;
  std::string task_description;  // the prompt's [TASK] section; empty: a generic one

  // Targets: character (code point) spans in document_text, or token ranges in the prompt.
  // Token ranges win when both are given; character spans are mapped through the tokenizer.
  std::vector<Span> target_chars;
  std::vector<Span> target_tokens;

  // Scoring (optional): the reference answers and the scorer's name (see core/task/scorers.h).
  std::vector<std::string> reference_answers;
  std::string scorer;
  std::string task;               // the task that produced the item, when one did
  nlohmann::json task_meta = nlohmann::json::object();

  // The method and its parameters (resolved against the method's ParamSpecs before the run).
  std::string method;
  nlohmann::json params = nlohmann::json::object();
  std::uint64_t seed = 0;
  std::optional<double> budget_flops;  // when set, the method sizes itself to this budget
  std::int64_t max_answer_tokens = kPaperAnswerTokens;  // the answer's token budget
  // "model": the checkpoint's chat template (tokenizer_config.json) when it has one; "none": the
  // plain App. 11 prompt (prepared_prompt.h).
  std::string chat = "model";
  // false: the No-RoPE ablation (qTTT paper App. 12, Tables 2–3), every method alike: the model's
  // rotary embedding is skipped for the whole run (--no-rope).
  bool rope = true;

  nlohmann::json toJson() const;
  // Throws studio::Error (Argument) naming the field when the JSON does not describe a RunSpec.
  static RunSpec fromJson(const nlohmann::json& json);
};

// A task item's own meta as a run's task_meta: without the keys the studio writes and reads back
// (item_id, sweep_key, sweep_label, sweep_length, lr_validation_of, selected_lr), so that an item
// file's meta can neither pass a run off as a sweep cell or a validation trial nor give those keys
// a type fromJson would refuse.
nlohmann::json taskMetaOfItem(const nlohmann::json& item_meta);

}  // namespace studio::engine

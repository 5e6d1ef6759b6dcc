#pragma once
// What a finished run leaves behind besides its events: the answer, its score, its cost.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace studio::engine {

enum class RunStatus { Queued, Running, Completed, Failed, Cancelled, Interrupted };

const char* runStatusName(RunStatus status);
// Throws studio::Error (Format) for an unknown name.
RunStatus runStatusFromName(const std::string& name);

struct FlopCount {
  double prefill = 0;  // the one prefill of the prompt
  double extra = 0;    // what the method spends after it (decoding, qTTT steps, ...)
  double total() const { return prefill + extra; }
};

struct RunResult {
  RunStatus status = RunStatus::Completed;
  std::string output;              // everything generated (thinking included)
  std::string answer;              // the extracted answer
  std::optional<double> score;     // from the scorer, when the spec has references
  std::optional<bool> correct;
  FlopCount flops;                 // the analytic model of qTTT App. 10
  double wall_seconds = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t generated_tokens = 0;
  // The answer query's probe summary (mean over layers and heads), when targets were given.
  std::optional<double> target_mass;
  std::optional<double> target_margin;
  std::string error;               // set when status is Failed
  nlohmann::json details = nlohmann::json::object();  // method-specific extras (votes, beams, ...)
  // Where it came from (provenance.h): build, libtorch, device, dtype, model hashes; null when the
  // run failed before its model was loaded.
  nlohmann::json provenance = nullptr;

  nlohmann::json toJson() const;
};

}  // namespace studio::engine

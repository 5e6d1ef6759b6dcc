#pragma once
// The leak check (core/model/causality_check.h) as the studio runs it on every model it opens
// (issue 24: v2 runs one at start-up): the folder's config.json and *.safetensors are
// fingerprinted, a verdict the cache file already holds for that fingerprint is reused, otherwise
// the model is loaded on the CPU, checked on 64 random tokens, and the verdict stored. Weights
// above `max_bytes` are not loaded a second time for it (the verdict says so and names
// `studio-cli check-causality`).

#include <cstdint>
#include <string>

namespace studio::engine {

struct CausalityVerdict {
  enum class State { Passed, Failed, NotChecked, Error };
  State state = State::NotChecked;
  std::string detail;   // Failed: where it leaked; Passed: what held; otherwise why not checked
  bool cached = false;  // read from the cache file rather than computed now
};

constexpr std::uint64_t kCausalityCheckMaxBytes = 4ULL << 30;

// Blocking. `cache_file`: a JSON object {fingerprint: {"state", "detail", "model"}}, created when
// missing (an unreadable one is started afresh). Never throws: errors become State::Error.
CausalityVerdict checkModelCausality(const std::string& model_dir, const std::string& cache_file,
                                     std::uint64_t max_bytes = kCausalityCheckMaxBytes);

}  // namespace studio::engine

#pragma once
// A ReFINE run's steps as a trace holds them (plugins/method_refine/refine_report.h): per step its
// "refine_step" artifact, whose data are the raw and smoothed entropy [2, S] and whose meta is the
// step's entry (chunks, drawn positions, rollouts with their rewards, the losses). The ReFINE
// panel and the `refine` / `refine_steps` figures read it from here, live or from a session.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/run_trace.h"

namespace studio::analysis {

struct RefineChunkView {
  std::int64_t start = 0, end = 0;     // [start, end): the chunk's positions
  std::int64_t first = 0, last = -1;   // [first, last]: where a rollout may start
  std::int64_t position = -1;          // the drawn one, −1 when none is allowed
};

struct RefineRolloutView {
  std::int64_t position = 0;  // the prefix ends at this prompt position
  std::int64_t group = 0;
  std::vector<std::int64_t> tokens, truth;
  std::string text, truth_text;
  double reward_cos = 0, reward_binary = 0, reward = 0, advantage = 0;
};

struct RefineStepView {
  std::int64_t step = 0;
  std::vector<float> entropy;           // [S] H_t over the prompt, nats
  std::vector<float> entropy_smoothed;  // [S]
  std::vector<RefineChunkView> chunks;
  std::vector<RefineRolloutView> rollouts;
  double loss_ntp = 0, loss_nsp = 0, loss = 0;
  double reward_mean = 0, advantage_std = 0;
};

// Every ReFINE step the run reported, in step order. Throws studio::Error (Session) naming the
// artifact's field when an artifact is malformed.
std::vector<RefineStepView> refineSteps(const RunTrace& run);

}  // namespace studio::analysis

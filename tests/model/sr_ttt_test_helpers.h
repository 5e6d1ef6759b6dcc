#pragma once
// The SR-TTT fixtures' reference.json (scripts/reference/make_sr_ttt_reference_models.py), and what
// the tests of scripts/convert-sr-ttt need.

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace studio::sr_ttt_test {

struct ReferenceCase {
  std::vector<std::int64_t> ids;
  torch::Tensor logits;  // [T, vocab] float64
  struct Window {
    std::int64_t start = 0, end = 0;
    double p = 0, tau = 0;
  };
  struct Layer {
    double alpha = 0;
    std::vector<double> loss;
    std::vector<Window> windows;
    std::vector<std::int64_t> routed, cache;
    std::int64_t evictions = 0, dropped = 0, v2_total_evictions = 0;
  };
  std::vector<Layer> layers;
};

// The cases of <dir>/reference.json, shortest first.
std::vector<ReferenceCase> readReference(const std::string& dir);

// scripts/convert-sr-ttt in the source tree.
std::string convertScript();

// A Python program (argv: fixture folder, output .pt) that saves the fixture's weights as v2's
// torch.save does: {"model_state_dict": SRTTTModel.state_dict()} with the tied lm_head.weight, the
// rotary buffers and cache buffers a forward pass left non-empty, and a "config" of the
// non-default SRTTTConfig fields (ints and strings: torch 1.13's weights_only refuses floats).
extern const char* const kMakeV2CheckpointPython;

}  // namespace studio::sr_ttt_test

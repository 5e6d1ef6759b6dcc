#pragma once
// Synthetic runs for the [gui] tests of panels and figures: probe results and the events of an
// in_context run and a qttt run, as the engine would emit them, without a model.

#include <cstdint>
#include <string>
#include <vector>

#include "core/engine/events.h"
#include "core/engine/run_result.h"
#include "core/engine/run_spec.h"

namespace studio::views {
class RunTraces;
}

namespace studio::gui_test {

// A probe of one answer query over `layers` × `heads` heads: head (l, h) has mass
// base + 0.01·(l·heads + h); context length `context`; m(Δ) near-ties 4·(l + 1).
probe::ProbeResult probe(double base, int layers = 2, int heads = 4, std::int64_t context = 1000);

struct SyntheticRun {
  engine::RunSpec spec;
  std::vector<engine::Event> events;
  engine::RunResult result;
};

// in_context: a prefill probe and answer tokens; context `context` tokens.
SyntheticRun inContextRun(std::int64_t context = 1000, double mass = 0.05);
// qttt with `steps` steps: per step a loss (falling), a qttt_step probe (mass rising) and
// progress; then answer tokens.
SyntheticRun qtttRun(int steps = 4, std::int64_t context = 1000);

// A fresh process-unique temp path (not created).
std::string tempPath(const std::string& name);

// Hands `run` to `traces` as a run with id `id` that starts, reports its events and finishes.
void feed(views::RunTraces& traces, std::int64_t id, const SyntheticRun& run);

}  // namespace studio::gui_test

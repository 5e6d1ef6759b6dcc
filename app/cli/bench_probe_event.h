#pragma once
// The probe event the session benches write (bench sessions, bench merge): every head of `layers`
// × `heads` with one query of plausible made-up statistics, the size and shape of a real probe's.

#include <cstdint>

#include "core/engine/events.h"

namespace studio::cli {

engine::ProbeEvent syntheticProbeEvent(engine::ProbePhase phase, std::int64_t step,
                                       std::int64_t context_length, double required_margin,
                                       int layers, int heads);

}  // namespace studio::cli

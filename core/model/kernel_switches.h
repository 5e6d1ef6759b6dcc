#pragma once
// What chooses between the engine's CUDA kernels and the libtorch compositions they replace:
// switches in the environment (STUDIO_ATTENTION=flash, STUDIO_DECODE_GEMV=off, …; docs/gpu.md
// lists them), read at every call so that a test or a bench can compare both paths in one process
// (a getenv against microseconds of kernel). Free of libtorch, so that the Qt studio can check
// them at start-up (needs_gradient.h keeps out the kernels that have no backward).

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace studio::model {

// A switch and the values it takes; any other value set in the environment is refused at start-up
// (kernelSwitchProblems), so that a misspelt opt-in never runs the default unnoticed.
struct KernelSwitch {
  const char* name;
  std::initializer_list<const char*> values;
};

// Every switch the engine reads. Each changes which kernels compute a result, so a run's provenance
// records those that are set (kernelSwitchesSet). docs/gpu.md says what each does.
inline const KernelSwitch kKernelSwitches[] = {
    {"STUDIO_ATTENTION", {"chunked", "cudnn", "flash"}},
    {"STUDIO_DECODE_ATTENTION", {"flash", "staged"}},
    {"STUDIO_DECODE_GEMV", {"fused", "off"}},
    {"STUDIO_DECODE_GEMV_STREAM", {"on"}},
    {"STUDIO_DECODE_GRAPH", {"off"}},
    {"STUDIO_DECODE_LOOKAHEAD", {"off"}},
    {"STUDIO_DECODE_PDL", {"on"}},
    {"STUDIO_DECODE_PROLOGUE", {"fused"}},
    {"STUDIO_FUSED_ELEMENTWISE", {"off"}},
    {"STUDIO_FUSED_RESIDUAL", {"on"}},
    {"STUDIO_RMSNORM_BACKWARD", {"kernel"}},
    {"STUDIO_QTTT_GRAPH", {"on"}},
    {"STUDIO_SPAN_BACKWARD", {"kernel"}},
    {"STUDIO_TTT_MLP_SCAN", {"kernel"}},
    {"STUDIO_TTT_SCAN", {"libtorch"}},
};

// True when the environment variable `name` is set to exactly `value`. `name` must be one of
// kKernelSwitches and `value` one of its values (Internal error otherwise), so that provenance
// misses none and the start-up check knows every value a call site reads.
bool environmentSwitch(const char* name, const char* value);

// The switches of kKernelSwitches set in the environment now, by name.
std::map<std::string, std::string> kernelSwitchesSet();

// One line for each switch set to a value it does not take, naming the switch, the value and the
// values it takes; empty when every switch set is understood. studio-cli and the studio refuse to
// start with any.
std::vector<std::string> kernelSwitchProblems();

}  // namespace studio::model

#pragma once
// What the model benchmarks share: the machine's own fp32 matmul rate (so a figure travels as a
// ratio), peak resident memory, and a model to measure (a folder, or random weights of a shape).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/model_options.h"
#include "core/model/model_loader.h"

namespace studio::cli {

// GFLOP/s of a square fp32 matmul of size n on `device`, best of a few repetitions.
double matmulGflops(const torch::Device& device, std::int64_t n = 2048);

// The most heap memory in use while `body` ran, above the level before it: glibc's count of bytes
// in use (mallinfo2, arenas and mmapped blocks), sampled every millisecond by a second thread. Unlike
// the resident set it also sees memory the allocator reuses without returning it to the system (the
// studio's runtime tells glibc to keep freed memory). Host memory only.
double peakHeapBytesDuring(const std::function<void()>& body);

// A model folder (--model) or, when none is given, random weights of a built-in shape:
// "small" (Qwen3 layout, hidden 256, 4 layers, ~3.4M parameters, bench qttt's default), "20m"
// (hidden 512, 6 layers, ~23M parameters), "20m-ttt-linear" / "20m-ttt-mlp" (the same width and
// depth with TTT layers), "1.7b" and "4b" (Qwen3-1.7B's and Qwen3-4B's shapes). Random weights are
// drawn on the target device in the target dtype (randomTensors).
struct BenchModelOptions {
  ModelOptions model;
  std::string shape = "20m";
};
void addBenchModelOptions(CLI::App* command, BenchModelOptions& options);
std::shared_ptr<model::LoadedModel> loadBenchModel(const BenchModelOptions& options,
                                                   std::uint64_t seed = 0);
// "random 1.7b" or the model folder, for the figures' headers and JSON.
std::string benchModelName(const BenchModelOptions& options);

// `lengths` when every one is at least `minimum`; otherwise throws Argument naming `option`.
std::vector<std::int64_t> checkedLengths(const std::vector<std::int64_t>& lengths,
                                         const std::string& option, std::int64_t minimum);

// Untimed prefills before a bench's timed ones, so that those do not pay for kernel selection,
// cuBLAS handles and the allocator's first blocks: one of min(1024, shortest length) tokens (long
// enough to run the chunked path over a prefix) and, on CUDA, one at each length, since cuDNN's
// attention plans each new shape on its first call (docs/gpu.md) and the timed figures are the
// steady state's.
void warmUpPrefills(model::CausalLMImpl& lm, const std::vector<std::int64_t>& lengths,
                    const torch::Device& device);

// Seconds of wall time of `body`, with the device synchronised around it.
double timeSeconds(const torch::Device& device, const std::function<void()>& body);

// The memory one phase of a bench needed. On a CUDA device: the caching allocator's peak while
// the timed work itself ran (device_memory.h; reading it does not disturb the timing). On the CPU:
// the heap above the level before (peakHeapBytesDuring) during one more, untimed run of
// `untimed`, or nothing when `untimed` is empty.
struct PhaseMemory {
  std::optional<double> extra_bytes;        // above the level before the phase
  std::optional<double> device_peak_bytes;  // the device's whole peak, weights included (CUDA)
};
PhaseMemory measurePhase(const torch::Device& device, const std::function<void()>& timed,
                         const std::function<void()>& untimed = {});
// What PhaseMemory holds on `device`, for the JSON's "memory" field.
std::string memorySource(const torch::Device& device);
// A number or JSON null.
nlohmann::json jsonNumber(const std::optional<double>& value);
// "1.23 GiB", "456.7 MiB" or "n/a".
std::string formatBytes(const std::optional<double>& bytes);

}  // namespace studio::cli

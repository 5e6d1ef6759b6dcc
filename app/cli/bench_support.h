#pragma once
// What the model benchmarks share: the machine's own fp32 matmul rate (so a figure travels as a
// ratio), peak resident memory, and a model to measure (a folder, or random weights of a shape).

#include <memory>
#include <string>

#include "app/cli/model_options.h"
#include "core/model/model_loader.h"

namespace studio::cli {

// GFLOP/s of a square fp32 matmul of size n on `device`, best of a few repetitions.
double matmulGflops(const torch::Device& device, std::int64_t n = 2048);

// Peak resident set size of this process (VmHWM), and a reset of it (Linux clear_refs).
std::int64_t peakRssBytes();
void resetPeakRss();
std::int64_t currentRssBytes();

// A model folder (--model) or, when none is given, random weights of a built-in shape:
// "20m" (Qwen3 layout, hidden 512, 6 layers, ~23M parameters) or "1.7b" (Qwen3-1.7B's shape).
struct BenchModelOptions {
  ModelOptions model;
  std::string shape = "20m";
};
void addBenchModelOptions(CLI::App* command, BenchModelOptions& options);
std::shared_ptr<model::LoadedModel> loadBenchModel(const BenchModelOptions& options);

// Seconds of wall time of `body`, with the device synchronised around it.
double timeSeconds(const torch::Device& device, const std::function<void()>& body);

}  // namespace studio::cli

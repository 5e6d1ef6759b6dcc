#pragma once
// What the model benchmarks share: the machine's own fp32 matmul rate (so a figure travels as a
// ratio), peak resident memory, and a model to measure (a folder, or random weights of a shape).

#include <functional>
#include <memory>
#include <string>

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
// "20m" (Qwen3 layout, hidden 512, 6 layers, ~23M parameters), "20m-ttt-linear" / "20m-ttt-mlp"
// (the same width and depth with TTT layers) or "1.7b" (Qwen3-1.7B's shape).
struct BenchModelOptions {
  ModelOptions model;
  std::string shape = "20m";
};
void addBenchModelOptions(CLI::App* command, BenchModelOptions& options);
std::shared_ptr<model::LoadedModel> loadBenchModel(const BenchModelOptions& options);

// Seconds of wall time of `body`, with the device synchronised around it.
double timeSeconds(const torch::Device& device, const std::function<void()>& body);

}  // namespace studio::cli

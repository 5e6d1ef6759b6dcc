#pragma once
// A checkpoint's AdamW state by parameter name, in optimizer.safetensors: "<name>.exp_avg" and
// "<name>.exp_avg_sq" (float32, the parameter's shape) and the metadata "step.<name>", for every
// parameter the optimizer has stepped. Unlike torch::save's archive, whose keys and layout change
// between libtorch versions (Debian's 1.13 and a GPU machine's 2.x cannot read each other's),
// it resumes on any libtorch and device, and a mismatch names the parameter.

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace studio::train {

using NamedParameters = std::vector<std::pair<std::string, torch::Tensor>>;

// Writes the state of `optimizer` over `parameters` (the ones it trains) to `path`. Throws
// studio::Error (Unsupported) for AMSGrad, whose extra moment is not stored, and (Io).
void saveOptimizerState(const std::string& path, torch::optim::AdamW& optimizer,
                        const NamedParameters& parameters);

// Sets the state of `optimizer` over `parameters` from `path` (a parameter without an entry
// starts fresh, as one the optimizer never stepped). Throws studio::Error (Format) naming the
// file and the parameter for a missing moment, a shape that differs from the parameter's or a
// stored state of a parameter that is not trained here.
void loadOptimizerState(const std::string& path, torch::optim::AdamW& optimizer,
                        const NamedParameters& parameters);

// A checkpoint of an earlier version holds torch::save's optimizer.pt: loads it and checks that
// every state matches its parameter's shape (a file from another libtorch fails that, or fails to
// load). Throws studio::Error (Format) naming the file.
void loadLegacyOptimizerState(const std::string& path, torch::optim::AdamW& optimizer,
                              const NamedParameters& parameters, const torch::Device& device);

}  // namespace studio::train

#include "core/train/optimizer_state.h"

#include <map>
#include <set>
#include <sstream>
#include <type_traits>

#include "core/common/error.h"
#include "core/model/safetensors.h"

namespace studio::train {

namespace {

const char* const kStepPrefix = "step.";

// The optimizer's state key of a parameter: libtorch 1.13 keys by the TensorImpl address as a
// string, 2.x by the address itself.
template <typename StateMap>
typename StateMap::key_type stateKey(const StateMap&, const torch::Tensor& p) {
  using Key = typename StateMap::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream address;  // what 1.13's c10::guts::to_string writes
    address << p.unsafeGetTensorImpl();
    return address.str();
  } else {
    return static_cast<Key>(p.unsafeGetTensorImpl());
  }
}

const torch::optim::AdamWParamState* adamState(torch::optim::AdamW& optimizer,
                                               const torch::Tensor& p) {
  auto& states = optimizer.state();
  const auto found = states.find(stateKey(states, p));
  return found == states.end() ? nullptr
                               : static_cast<const torch::optim::AdamWParamState*>(found->second.get());
}

}  // namespace

void saveOptimizerState(const std::string& path, torch::optim::AdamW& optimizer,
                        const NamedParameters& parameters) {
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  std::map<std::string, std::string> metadata;
  for (const auto& [name, p] : parameters) {
    const torch::optim::AdamWParamState* state = adamState(optimizer, p);
    if (!state) continue;
    if (state->max_exp_avg_sq().defined()) {
      throwError(ErrorKind::Unsupported, path, name, "AMSGrad's state is not stored");
    }
    tensors.emplace_back(name + ".exp_avg", state->exp_avg().detach().to(torch::kCPU, torch::kFloat32));
    tensors.emplace_back(name + ".exp_avg_sq",
                         state->exp_avg_sq().detach().to(torch::kCPU, torch::kFloat32));
    metadata[kStepPrefix + name] = std::to_string(state->step());
  }
  model::writeSafetensors(path, tensors, metadata);
}

void loadOptimizerState(const std::string& path, torch::optim::AdamW& optimizer,
                        const NamedParameters& parameters) {
  const model::SafetensorsFile file = model::SafetensorsFile::open(path);
  std::set<std::string> stored;
  for (const auto& [key, value] : file.metadata()) {
    if (key.rfind(kStepPrefix, 0) == 0) stored.insert(key.substr(std::string(kStepPrefix).size()));
  }
  auto& states = optimizer.state();
  for (const auto& [name, p] : parameters) {
    if (!stored.erase(name)) continue;
    auto moment = [&](const std::string& which) {
      const std::string tensor = name + "." + which;
      if (!file.contains(tensor)) throwError(ErrorKind::Format, path, tensor, "is missing");
      const torch::Tensor t = file.tensor(tensor);
      if (t.sizes() != p.sizes()) {
        throwError(ErrorKind::Format, path, tensor,
                   "has shape " + c10::str(t.sizes()) + ", the parameter " + c10::str(p.sizes()));
      }
      return t.to(p.device(), p.scalar_type()).clone();
    };
    auto state = std::make_unique<torch::optim::AdamWParamState>();
    try {
      state->step(std::stoll(file.metadata().at(kStepPrefix + name)));
    } catch (const std::exception&) {
      throwError(ErrorKind::Format, path, kStepPrefix + name, "is not an integer");
    }
    state->exp_avg(moment("exp_avg"));
    state->exp_avg_sq(moment("exp_avg_sq"));
    states[stateKey(states, p)] = std::move(state);
  }
  if (!stored.empty()) {
    throwError(ErrorKind::Format, path, *stored.begin(),
               "has an optimizer state but is not a parameter trained here");
  }
}

void loadLegacyOptimizerState(const std::string& path, torch::optim::AdamW& optimizer,
                              const NamedParameters& parameters, const torch::Device& device) {
  // PyTorch 2.x's torch::load replaces each group's options (betas, weight decay, ...) with the
  // archive's; the recipe's are kept, as loadOptimizerState keeps them.
  std::vector<std::unique_ptr<torch::optim::OptimizerOptions>> recipe_options;
  for (auto& group : optimizer.param_groups()) recipe_options.push_back(group.options().clone());
  try {
    torch::load(optimizer, path, device);
  } catch (const c10::Error& error) {
    throwError(ErrorKind::Format, path, "",
               std::string("cannot load the optimizer state: ") + error.what_without_backtrace());
  }
  for (std::size_t i = 0; i < recipe_options.size(); ++i) {
    optimizer.param_groups()[i].set_options(std::move(recipe_options[i]));
  }
  for (const auto& [name, p] : parameters) {
    const torch::optim::AdamWParamState* state = adamState(optimizer, p);
    if (state && (state->exp_avg().sizes() != p.sizes() || state->exp_avg_sq().sizes() != p.sizes())) {
      throwError(ErrorKind::Format, path, name,
                 "its optimizer state has shape " + c10::str(state->exp_avg().sizes()) +
                     ", the parameter " + c10::str(p.sizes()) +
                     " (torch::save's archive from another libtorch version?): resume where it "
                     "was written, which then writes optimizer.safetensors");
    }
  }
}

}  // namespace studio::train

#include "analysis/attention_window_tensors.h"

#include <torch/torch.h>

#include <filesystem>

#include "core/common/error.h"
#include "core/model/safetensors.h"

namespace studio::analysis {

namespace {

torch::Tensor positions(std::int64_t first, std::int64_t count) {
  return torch::arange(first, first + count, torch::kInt64);  // [count]
}

torch::Tensor phaseWeights(const AttentionWindowData& window, std::size_t phase) {
  std::vector<float> copy = window.weights.at(phase);
  return torch::from_blob(copy.data(), {window.queries, window.keys}, torch::kFloat32).clone();
}

}  // namespace

std::string attentionWindowTensorsPath(const std::string& figure_path) {
  return std::filesystem::path(figure_path).replace_extension(".safetensors").string();
}

void writeAttentionWindowTensors(const AttentionWindowData& window, std::size_t phase,
                                 bool difference, const std::string& path) {
  const std::size_t phases = window.weights.size();
  if (difference ? phases < 2 : phase >= phases) {
    throwArgument("--phase", difference ? "the difference needs two phases; the window has " +
                                              std::to_string(phases)
                                        : "the window has no phase " + std::to_string(phase));
  }
  if (window.phase_names.size() != phases) {
    throwArgument("window", "names " + std::to_string(window.phase_names.size()) + " phases for " +
                                std::to_string(phases));
  }
  const auto cells = static_cast<std::size_t>(window.queries * window.keys);
  for (const std::vector<float>& weights : window.weights) {
    if (weights.size() != cells) {
      throwArgument("window", "holds " + std::to_string(weights.size()) + " weights for " +
                                  std::to_string(window.queries) + " × " +
                                  std::to_string(window.keys));
    }
  }
  // [queries, keys]
  const torch::Tensor attention = difference
                                      ? phaseWeights(window, phases - 1) - phaseWeights(window, 0)
                                      : phaseWeights(window, phase);
  std::vector<std::int64_t> spans;
  for (const auto& [first, end] : window.targets) {
    spans.push_back(first);
    spans.push_back(end);
  }
  const auto span_count = static_cast<std::int64_t>(window.targets.size());
  const torch::Tensor evidence =  // [spans, 2]
      torch::tensor(spans, torch::kInt64).reshape({span_count, 2});
  const std::string phase_name =
      difference ? window.phase_names.back() + " − " + window.phase_names.front()
                 : window.phase_names.at(phase);
  model::writeSafetensors(path,
                          {{"attention", attention},
                           {"query_positions", positions(window.first_query, window.queries)},
                           {"key_positions", positions(window.first_key, window.keys)},
                           {"evidence", evidence}},
                          {{"title", window.title},
                           {"phase", phase_name},
                           {"scope", window.scope},
                           {"caption", window.caption}});
}

}  // namespace studio::analysis

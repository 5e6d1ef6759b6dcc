#include "core/model/undecodable_ids.h"

#include <limits>
#include <vector>

namespace studio::model {

torch::Tensor undecodableIds(const tokenizer::Tokenizer& tokenizer, std::int64_t model_vocab,
                             const torch::Device& device) {
  std::vector<std::int64_t> unknown;
  for (std::int64_t id = 0; id < model_vocab; ++id) {
    if (!tokenizer.knows(id)) unknown.push_back(id);
  }
  if (unknown.empty()) return {};
  auto mask = torch::zeros({model_vocab}, torch::kBool);
  mask.index_fill_(0, torch::tensor(unknown, torch::kInt64), true);
  return mask.to(device);
}

torch::Tensor withoutUndecodable(const torch::Tensor& logits, const torch::Tensor& mask) {
  if (!mask.defined()) return logits;
  return logits.masked_fill(mask, -std::numeric_limits<float>::infinity());
}

}  // namespace studio::model

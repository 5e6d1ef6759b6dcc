#pragma once
// The ids a model can emit that its tokenizer cannot decode. A checkpoint's embedding is often
// padded past the tokenizer's vocabulary (to a multiple of 64 or 128), and a vocabulary can have
// unused ids; sampling one would end a run at decode. Generation masks them out of the logits.

#include <torch/torch.h>

#include "core/tokenizer/tokenizer.h"

namespace studio::model {

// [model_vocab] bool on `device`, true where the tokenizer cannot decode the id; undefined when it
// decodes every id below model_vocab.
torch::Tensor undecodableIds(const tokenizer::Tokenizer& tokenizer, std::int64_t model_vocab,
                             const torch::Device& device);

// `logits` ([vocab]) with the masked ids at −inf; `logits` itself when `mask` is undefined.
torch::Tensor withoutUndecodable(const torch::Tensor& logits, const torch::Tensor& mask);

}  // namespace studio::model

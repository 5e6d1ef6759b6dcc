#include "core/engine/answer_attention.h"

#include <nlohmann/json.hpp>

#include "core/probe/attention_probe.h"

namespace studio::engine {

ArtifactEvent answerAttentionArtifact(model::CausalLMImpl& lm, const model::ModelState& state,
                                      const model::ForwardCapture& capture,
                                      const PreparedPrompt& prompt, const std::string& phase) {
  // The document's tokens: those starting inside its bytes of the prompt text.
  const std::int64_t doc_begin = static_cast<std::int64_t>(prompt.context_offset);
  const std::int64_t doc_end = doc_begin + static_cast<std::int64_t>(prompt.context_bytes);
  std::int64_t first = -1, end = -1;
  for (std::int64_t t = 0; t < prompt.length(); ++t) {
    const Span bytes = prompt.token_bytes[static_cast<std::size_t>(t)];
    if (bytes.start >= doc_begin && bytes.start < doc_end) {
      if (first < 0) first = t;
      end = t + 1;
    }
  }
  ArtifactEvent artifact;
  artifact.name = "answer_attention";
  artifact.kind = "attention_row";
  nlohmann::json meta = {{"phase", phase},
                         {"query_position", prompt.answerQuery()},
                         {"document_bytes", doc_end - doc_begin}};
  if (first < 0) {  // an empty document
    artifact.shape = {0, 0, 0};
    meta["context_tokens"] = {0, 0};
    meta["token_starts"] = nlohmann::json::array();
    artifact.meta_json = meta.dump();
    return artifact;
  }
  std::vector<torch::Tensor> layers;
  if (lm.config().attentionLayerCount() > 0) {
    const Span keys{first, end};
    probe::AttentionProbe probe(lm, state, prompt.ids);
    for (int l = 0; l < lm.numLayers(); ++l) {
      if (!lm.attention(l)) continue;  // a hybrid's TTT layers have no attention weights
      layers.push_back(probe.layerWeights(capture, l, keys).select(1, 0));  // [Hq, n]
    }
  }
  bool heads_averaged = false, layers_averaged = false;
  if (layers.empty()) {  // no attention layers (a TTT model): the token map alone
    artifact.shape = {0, 0, end - first};
    meta["no_attention_layers"] = true;
  } else {
    torch::Tensor weights = torch::stack(layers);  // [L, Hq, n]
    if (weights.numel() > kMaxAnswerAttentionValues) {
      weights = weights.mean(1, /*keepdim=*/true);  // [L, 1, n]
      heads_averaged = true;
    }
    if (weights.numel() > kMaxAnswerAttentionValues) {
      weights = weights.mean(0, /*keepdim=*/true);  // [1, 1, n]
      layers_averaged = true;
    }
    weights = weights.to(torch::kCPU, torch::kFloat32).contiguous();
    artifact.shape = {weights.size(0), weights.size(1), weights.size(2)};
    artifact.data.assign(weights.data_ptr<float>(), weights.data_ptr<float>() + weights.numel());
  }
  nlohmann::json starts = nlohmann::json::array();
  for (std::int64_t t = first; t < end; ++t) {
    starts.push_back(prompt.token_bytes[static_cast<std::size_t>(t)].start - doc_begin);
  }
  meta["context_tokens"] = {first, end};
  meta["token_starts"] = std::move(starts);
  meta["heads_averaged"] = heads_averaged;
  meta["layers_averaged"] = layers_averaged;
  artifact.meta_json = meta.dump();
  return artifact;
}

}  // namespace studio::engine

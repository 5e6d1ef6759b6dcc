#pragma once
// "Attention from the answer" as a run reports it: the weight the answer query puts on every
// token of the document, per layer and head, after the prefill (and after qTTT, with the adapted
// W_Q). The document view colours the text with it.

#include <string>

#include "core/engine/events.h"
#include "core/engine/prepared_prompt.h"
#include "core/model/causal_lm.h"
#include "core/model/model_state.h"
#include "core/model/mixer.h"

namespace studio::engine {

// Weights above this many values are averaged over heads first (and then over layers), so that a
// long document on a large model stays a few megabytes per run.
constexpr std::int64_t kMaxAnswerAttentionValues = std::int64_t{1} << 22;

// An ArtifactEvent named "answer_attention", kind "attention_row":
//   shape [layers, heads, n] over the n tokens that lie in the document (heads or layers may be 1
//   when averaged, said by meta "heads_averaged" / "layers_averaged"), data row-major float32;
//   meta {"phase", "query_position", "context_tokens": [first, end) in the prompt,
//         "token_starts": n byte offsets of the tokens in the document, "document_bytes"}.
//   A model without attention layers gets shape [0, 0, n] and no data (meta
//   "no_attention_layers"): the token map alone, for the views that colour the document per token.
// `capture` must hold the answer query (prompt.answerQuery()) of every layer; `state` the prompt.
ArtifactEvent answerAttentionArtifact(model::CausalLMImpl& lm, const model::ModelState& state,
                                      const model::ForwardCapture& capture,
                                      const PreparedPrompt& prompt, const std::string& phase);

}  // namespace studio::engine

#pragma once
// Decode steps replayed from a captured CUDA graph. Eager decoding launches each projection,
// norm, RoPE, attention and MLP op of every layer one at a time; a step of a 1.7B or a 4B model
// took 20–33 ms on an H100 or H200 whatever the model's size (docs/gpu.md): the host's launches
// bound it, not the GPU. A DecodeGraph runs its first step eagerly in AttentionMode::InPlace
// (mixer.h), captures the same step into a CUDA graph, and replays that graph at every later
// step, with the token, its position and the key count written into the device tensors it reads.
// The cache's tails are made room for in advance (KVCache::prepareInPlace); when they fill up
// they grow, and the step is captured again.
//
// It applies to models of attention layers only (so never with fast-weight losses or routing to
// record), on CUDA, in a build with the kernels; refusal() says why not otherwise, and decodeStep
// (inference.h) runs instead. Made with `capture_queries`, every step also captures the fed
// token's query and log-sum-exp in every layer (capture()): the probes of thinking tokens
// (SPEC §1, Prop. 2.4) then run on replayed steps too. generate() uses it where it pays (up to
// kDecodeGraphMaxContext positions: generationRefusal()). STUDIO_DECODE_GRAPH=off in the
// environment turns it off everywhere.
//
// A step's attention is the decode kernel (decode_attention.h), or with
// STUDIO_DECODE_ATTENTION=flash (opt-in until a GPU has measured it) flash's variable-length
// kernel, which reads the key count from the device as the span step of qTTT does
// (fusedSpanAttention, fused_attention.h). Flash reads one segment a layer, so the tails are then
// made to hold the whole cache (a forked state's shared prefix is copied into each tail once).

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/model/causal_lm.h"
#include "core/model/model_state.h"

namespace studio::model {

// Past this many positions eager steps may be faster: the graph's decode attention kernel reads the
// cache at about 1 TB/s where flash attention reads it faster, while an eager step costs about the
// same at any length. On an H200 (Qwen3-1.7B shape) the graph gave 181–193 tokens/s at 8k and
// 119–121 at 32k, run after run; eager steps are bound by the host and gave 76–158 at either
// length from one process to the next (median about 118 at 32k), so the two meet near 32k
// (docs/gpu.md). A graph whose steps attend through flash (flashAttentionChosen) has no such
// limit: its attention is the eager steps' own kernel.
constexpr std::int64_t kDecodeGraphMaxContext = 32768;

class DecodeGraph {
 public:
  // Why steps of this model from this state cannot be replayed from a graph; empty when they can.
  static std::string refusal(const CausalLMImpl& lm, const ModelState& state);
  // Why generate() decodes a generation that ends at `final_length` positions op by op: refusal(),
  // or a length past kDecodeGraphMaxContext where the graph's attention is the decode kernel, where
  // the graph does not pay. Empty: it replays.
  static std::string generationRefusal(const CausalLMImpl& lm, const ModelState& state,
                                       std::int64_t final_length);
  // Whether a graph made now would attend through flash: STUDIO_DECODE_ATTENTION=flash, and flash
  // takes the model's dtype and heads (fusedSpanAttentionApplies). Otherwise the decode kernel.
  static bool flashAttentionChosen(const CausalLMImpl& lm);

  // `room`: positions to make room for past the state's length; when they are used up, twice as
  // many more. `capture_queries`: capture each step's query (capture()).
  // Throws studio::Error (Unsupported) with refusal()'s reason when it does not apply.
  DecodeGraph(CausalLMImpl& lm, ModelState& state, std::int64_t room, bool capture_queries = false);
  ~DecodeGraph();
  DecodeGraph(const DecodeGraph&) = delete;
  DecodeGraph& operator=(const DecodeGraph&) = delete;

  // As decodeStep(lm, state, token): reads `token` at the state's next position and returns the
  // logits [vocab] predicting the token after it. The tensor is the graph's output, overwritten
  // by the next step: read it (or clone it) first. The state must not be changed in between
  // other than by step() and truncate().
  torch::Tensor step(std::int64_t token);
  // The same for a token chosen on the device ([1] int64, e.g. the argmax of the last step's
  // logits), copied into the graph's input on the device: the host need not wait for it. It is
  // not checked against the vocabulary (that would read it back).
  torch::Tensor step(const torch::Tensor& token);
  // Forgets the positions from `length` on (ModelState::truncate) and goes on replaying: the
  // cache's tails keep their addresses. `length` may not reach back before the state's length
  // when this graph was made.
  void truncate(std::int64_t length);

  // With capture_queries: the last step's query [1, Hq, 1, D] and log-sum-exp [1, Hq, 1] in
  // every attention layer, at the position it was fed at, as decodeStep's capture with
  // query_positions {that position} holds them. A replayed graph's tensors: the next step
  // overwrites them.
  const ForwardCapture& capture() const;
  bool capturesQueries() const;  // made with capture_queries

  // The attention this graph's steps run, chosen when it was made: "flash" or "decode kernel".
  const char* attentionPath() const;

  std::int64_t captures() const;  // graphs captured so far (1, plus one per growth of the tails)
  std::int64_t replays() const;   // steps replayed from a graph
  // Set when a capture failed (the steps then run eagerly, in place): what failed.
  const std::string& captureFailure() const;

 private:
  struct Impl;
  torch::Tensor stepWith(const std::function<void()>& write_token);

  std::unique_ptr<Impl> m_impl;
};

}  // namespace studio::model

#include "core/model/generation.h"

#include <algorithm>
#include <numeric>

#include "core/common/error.h"
#include "core/model/decode_graph.h"
#include "core/model/inference.h"
#include "core/model/undecodable_ids.h"
#include "core/tokenizer/stream_decoder.h"

namespace studio::model {

const char* stopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::Eos: return "eos";
    case StopReason::StopString: return "stop_string";
    case StopReason::MaxTokens: return "max_tokens";
    case StopReason::Cancelled: return "cancelled";
  }
  return "unknown";
}

double Generation::logprobSum() const {
  return std::accumulate(logprobs.begin(), logprobs.end(), 0.0);
}

namespace {

// The position of the first stop string in `text` that starts at or after `from`, or npos.
std::size_t findStop(const std::string& text, const std::vector<std::string>& stops,
                     std::size_t from) {
  std::size_t best = std::string::npos;
  for (const std::string& stop : stops) {
    if (stop.empty()) continue;
    const std::size_t at = text.find(stop, from);
    if (at != std::string::npos) best = std::min(best, at);
  }
  return best;
}

}  // namespace

Generation generate(CausalLMImpl& lm, ModelState& state, torch::Tensor logits, Sampler& sampler,
                    const StopCriteria& stop,
                    const std::shared_ptr<const tokenizer::Tokenizer>& tokenizer,
                    const DecodeHooks& hooks) {
  if (!stop.stop_strings.empty() && !tokenizer) {
    throwArgument("stop_strings", "stop strings need a tokenizer");
  }
  torch::NoGradGuard no_grad;
  Generation out;
  std::unique_ptr<tokenizer::StreamDecoder> decoder;
  if (tokenizer) decoder = std::make_unique<tokenizer::StreamDecoder>(tokenizer);
  // Ids past the tokenizer's vocabulary (a padded embedding) are never sampled: decoding one
  // would end the run and lose its answer.
  torch::Tensor never_sampled =
      tokenizer ? undecodableIds(*tokenizer, logits.size(-1), logits.device()) : torch::Tensor();
  const std::vector<std::string> no_strings;
  const std::vector<std::string>& stop_strings = stop.exact_length ? no_strings : stop.stop_strings;
  std::vector<std::int64_t> suppressed = stop.suppressed_ids;
  if (stop.exact_length) {
    suppressed.insert(suppressed.end(), stop.eos_ids.begin(), stop.eos_ids.end());
  }
  if (!suppressed.empty()) {
    // [vocab] bool: the undecodable ids and the suppressed ones.
    never_sampled = never_sampled.defined()
                        ? never_sampled.clone()
                        : torch::zeros({logits.size(-1)},
                                       torch::dtype(torch::kBool).device(logits.device()));
    for (const std::int64_t id : suppressed) {
      if (id >= 0 && id < logits.size(-1)) never_sampled[id] = true;
    }
  }
  std::size_t longest_stop = 0;
  for (const auto& s : stop_strings) longest_stop = std::max(longest_stop, s.size());

  // Without per-step hooks, steps replay a captured CUDA graph where one applies and pays
  // (decode_graph.h; on the CPU, past 32k positions, for TTT and SR-TTT layers and with hooks,
  // decodeStep runs). Its tails get room for up to 4,096 tokens at first and grow when a
  // generation goes on past them.
  std::unique_ptr<DecodeGraph> graph;
  const bool hooked = hooks.on_step || hooks.on_fast_weight_losses || hooks.on_routing;
  if (!hooked && stop.max_tokens > 1 &&
      DecodeGraph::generationRefusal(lm, state, state.length() + stop.max_tokens).empty()) {
    graph = std::make_unique<DecodeGraph>(lm, state, std::min<std::int64_t>(stop.max_tokens, 4096));
  }

  for (std::int64_t index = 0; index < stop.max_tokens; ++index) {
    if (hooks.cancelled && hooks.cancelled()) {
      out.stop = StopReason::Cancelled;
      return out;
    }
    GeneratedToken token;
    token.index = index;
    token.id = sampler.sample(withoutUndecodable(logits, never_sampled));
    token.logprob = tokenLogProb(logits, token.id);
    if (decoder) token.text = decoder->push(token.id);
    out.ids.push_back(token.id);
    out.logprobs.push_back(token.logprob);
    const std::size_t searched_from = out.text.size() > longest_stop ? out.text.size() - longest_stop : 0;
    out.text += token.text;
    if (hooks.on_token) hooks.on_token(token);

    if (std::find(stop.eos_ids.begin(), stop.eos_ids.end(), token.id) != stop.eos_ids.end()) {
      out.stop = StopReason::Eos;
      return out;
    }
    const std::size_t at = findStop(out.text, stop_strings, searched_from);
    // Feed the token so that the state holds everything generated (and the probe sees it).
    ForwardCapture capture;
    FastWeightLosses losses;
    RoutingTrace routing;
    if (hooks.on_step) capture.query_positions = {state.length()};
    const std::int64_t position = state.length();
    logits = graph ? graph->step(token.id)
                   : decodeStep(lm, state, token.id, hooks.on_step ? &capture : nullptr,
                                hooks.on_fast_weight_losses ? &losses : nullptr,
                                hooks.on_routing ? &routing : nullptr);
    if (hooks.on_step) hooks.on_step(position, capture);
    if (hooks.on_fast_weight_losses) hooks.on_fast_weight_losses(losses);
    if (hooks.on_routing) hooks.on_routing(routing);
    if (at != std::string::npos) {
      out.text.resize(at);
      out.stop = StopReason::StopString;
      return out;
    }
  }
  if (decoder) out.text += decoder->flush();
  out.stop = StopReason::MaxTokens;
  return out;
}

}  // namespace studio::model

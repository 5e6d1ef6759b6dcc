#include "core/model/generation.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "core/common/error.h"
#include "core/common/torch_compat.h"
#include "core/model/decode_graph.h"
#include "core/model/host_readback.h"
#include "core/model/inference.h"
#include "core/model/kernel_switches.h"
#include "core/model/undecodable_ids.h"
#include "core/tokenizer/stream_decoder.h"

namespace studio::model {

using torch::Tensor;

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

// What both decode loops do with a token once the host has it: its text, the on_token hook, and
// whether it ends the generation.
class Transcript {
 public:
  enum class Verdict {
    GoOn,        // feed it and go on
    Eos,         // an end id: not fed, the generation ends
    StopString,  // feed it, then the generation ends (the text is already cut)
  };

  Transcript(Generation& out, const StopCriteria& stop,
             const std::shared_ptr<const tokenizer::Tokenizer>& tokenizer, const DecodeHooks& hooks)
      : m_out(out), m_stop(stop), m_hooks(hooks) {
    if (tokenizer) m_decoder = std::make_unique<tokenizer::StreamDecoder>(tokenizer);
    if (!stop.exact_length) m_stop_strings = stop.stop_strings;
    for (const auto& text : m_stop_strings) m_longest_stop = std::max(m_longest_stop, text.size());
  }

  Verdict add(std::int64_t index, std::int64_t id, double logprob) {
    GeneratedToken token;
    token.index = index;
    token.id = id;
    token.logprob = logprob;
    if (m_decoder) token.text = m_decoder->push(id);
    m_out.ids.push_back(id);
    m_out.logprobs.push_back(logprob);
    const std::size_t searched_from =
        m_out.text.size() > m_longest_stop ? m_out.text.size() - m_longest_stop : 0;
    m_out.text += token.text;
    if (m_hooks.on_token) m_hooks.on_token(token);
    if (std::find(m_stop.eos_ids.begin(), m_stop.eos_ids.end(), id) != m_stop.eos_ids.end()) {
      m_out.stop = StopReason::Eos;
      return Verdict::Eos;
    }
    const std::size_t at = findStop(m_out.text, m_stop_strings, searched_from);
    if (at == std::string::npos) return Verdict::GoOn;
    m_out.text.resize(at);
    m_out.stop = StopReason::StopString;
    return Verdict::StopString;
  }

  // The generation ran to max_tokens.
  void reachedMaxTokens() {
    if (m_decoder) m_out.text += m_decoder->flush();
    m_out.stop = StopReason::MaxTokens;
  }

 private:
  Generation& m_out;
  const StopCriteria& m_stop;
  const DecodeHooks& m_hooks;
  std::unique_ptr<tokenizer::StreamDecoder> m_decoder;
  std::vector<std::string> m_stop_strings;
  std::size_t m_longest_stop = 0;
};

// Waits, when generate() leaves (returning or throwing), for the work it queued on its stream:
// the last step (and in decodeAhead a token's choice no one will read) may still run, and a graph
// that goes out of scope must not be destroyed under it.
class QueuedWorkDrain {
 public:
  explicit QueuedWorkDrain(const torch::Device& device) : m_device(device) {}
  ~QueuedWorkDrain() {
    try {
      compat::synchronizeCurrentStream(m_device);
    } catch (...) {
      // A destructor must not throw; a device error comes back at the next call on it.
    }
  }
  QueuedWorkDrain(const QueuedWorkDrain&) = delete;
  QueuedWorkDrain& operator=(const QueuedWorkDrain&) = delete;

 private:
  torch::Device m_device;
};

bool hasPerStepHooks(const DecodeHooks& hooks) {
  return hooks.on_step || hooks.on_fast_weight_losses || hooks.on_routing;
}

// The greedy token of `logits` [vocab] chosen on the device, as Sampler (greedy) and
// tokenLogProb choose and score it: the id [1] int64 is returned, and {id, log p(id)} [2]
// float64 is queued for the host in `readback`.
Tensor chooseGreedy(const Tensor& logits, const Tensor& never_sampled, HostReadback& readback) {
  const Tensor row = logits.reshape({-1}).to(torch::kFloat32);                     // [vocab]
  const Tensor id = withoutUndecodable(row, never_sampled).argmax().reshape({1});  // [1] int64
  const Tensor logprob = torch::log_softmax(row, 0).index_select(0, id);           // [1]
  readback.copy(torch::cat({id.to(torch::kFloat64), logprob.to(torch::kFloat64)}));
  return id;
}

// Greedy decoding with each step queued before the host reads the token it feeds
// (lookaheadRefusal()). At step `index` the device holds token `index`, chosen from `logits`:
// the step that feeds it and the choice of the next token are queued, and only then does the
// host wait for token `index` (its choice was queued before that step, so the step runs
// meanwhile) and check it.
void decodeAhead(CausalLMImpl& lm, ModelState& state, Tensor logits, const StopCriteria& stop,
                 const Tensor& never_sampled, DecodeGraph* graph, const DecodeHooks& hooks,
                 Transcript& transcript, Generation& out) {
  out.queued_ahead = true;
  HostReadback even(lm.device(), 2), odd(lm.device(), 2);  // {id, logprob}
  HostReadback* const slots[2] = {&even, &odd};
  const auto feed = [&](const Tensor& token) {
    return graph ? graph->step(token) : decodeStep(lm, state, token);
  };
  // Forgets the token fed last, as if it had not been: where the one-step loop would not have
  // fed it yet.
  const auto take_back = [&] {
    const std::int64_t length = state.length() - 1;
    if (graph) {
      graph->truncate(length);
    } else {
      state.truncate(length);
    }
  };
  Tensor next = chooseGreedy(logits, never_sampled, even);  // [1] int64
  for (std::int64_t index = 0; index < stop.max_tokens; ++index) {
    if (hooks.cancelled && hooks.cancelled()) {
      out.stop = StopReason::Cancelled;
      return;
    }
    logits = feed(next);
    if (index + 1 < stop.max_tokens) {
      next = chooseGreedy(logits, never_sampled, *slots[(index + 1) % 2]);
    }
    const double* chosen = slots[index % 2]->read();
    Transcript::Verdict verdict;
    try {
      verdict = transcript.add(index, static_cast<std::int64_t>(chosen[0]), chosen[1]);
    } catch (...) {
      take_back();  // an on_token hook threw: the one-step loop had not fed the token yet
      throw;
    }
    if (verdict == Transcript::Verdict::Eos) {
      take_back();  // the end id was fed with the rest
      return;
    }
    if (verdict == Transcript::Verdict::StopString) {
      out.logits = logits;
      return;
    }
  }
  transcript.reachedMaxTokens();
  out.logits = logits;
}

// Each step waits for the host: the token is chosen (on the host, by the sampler), checked and
// reported, then fed, and the per-step hooks see that step.
void decodeOneByOne(CausalLMImpl& lm, ModelState& state, Tensor logits, Sampler& sampler,
                    const StopCriteria& stop, const Tensor& never_sampled, DecodeGraph* graph,
                    const DecodeHooks& hooks, Transcript& transcript, Generation& out) {
  for (std::int64_t index = 0; index < stop.max_tokens; ++index) {
    if (hooks.cancelled && hooks.cancelled()) {
      out.stop = StopReason::Cancelled;
      return;
    }
    const std::int64_t id = sampler.sample(withoutUndecodable(logits, never_sampled));
    const auto verdict = transcript.add(index, id, tokenLogProb(logits, id));
    if (verdict == Transcript::Verdict::Eos) return;
    // Feed the token so that the state holds everything generated (and the probe sees it).
    ForwardCapture capture;
    FastWeightLosses losses;
    RoutingTrace routing;
    const std::int64_t position = state.length();
    if (hooks.on_step) capture.query_positions = {position};
    logits = graph ? graph->step(id)
                   : decodeStep(lm, state, id, hooks.on_step ? &capture : nullptr,
                                hooks.on_fast_weight_losses ? &losses : nullptr,
                                hooks.on_routing ? &routing : nullptr);
    if (hooks.on_step) hooks.on_step(position, graph ? graph->capture() : capture);
    if (hooks.on_fast_weight_losses) hooks.on_fast_weight_losses(losses);
    if (hooks.on_routing) hooks.on_routing(routing);
    if (verdict == Transcript::Verdict::StopString) {
      out.logits = logits;
      return;
    }
  }
  transcript.reachedMaxTokens();
  out.logits = logits;
}

}  // namespace

std::string lookaheadRefusal(const CausalLMImpl& lm, const Sampler& sampler,
                             const DecodeHooks& hooks) {
  if (environmentSwitch("STUDIO_DECODE_LOOKAHEAD", "off")) return "STUDIO_DECODE_LOOKAHEAD=off";
  if (!sampler.params().greedy()) return "the sampler draws (temperature > 0) on the host";
  if (hasPerStepHooks(hooks)) return "per-step hooks read every step's capture";
  for (int i = 0; i < lm.numLayers(); ++i) {
    if (!lm.attention(i)) {
      return "layer " + std::to_string(i) +
             " is not attention: its state cannot take back a token at every position";
    }
  }
  return {};
}

Generation generate(CausalLMImpl& lm, ModelState& state, torch::Tensor logits, Sampler& sampler,
                    const StopCriteria& stop,
                    const std::shared_ptr<const tokenizer::Tokenizer>& tokenizer,
                    const DecodeHooks& hooks, const DecodePlan& plan) {
  if (!stop.stop_strings.empty() && !tokenizer) {
    throwArgument("stop_strings", "stop strings need a tokenizer");
  }
  // Fast-weight losses and routing are recorded op by op (only TTT and SR-TTT layers have them,
  // and their steps are never replayed); a step's query is captured on replayed steps too.
  const bool records_layers = hooks.on_fast_weight_losses || hooks.on_routing;
  if (plan.graph) {
    if (records_layers || plan.op_by_op) {
      throwArgument("plan.graph", records_layers ? "steps that record fast-weight losses or "
                                                   "routing run op by op"
                                                 : "a graph was given with op_by_op set");
    }
    if (hooks.on_step && !plan.graph->capturesQueries()) {
      throwArgument("plan.graph", "on_step needs a graph made with capture_queries");
    }
  }
  torch::NoGradGuard no_grad;
  Generation out;
  Transcript transcript(out, stop, tokenizer, hooks);
  // Ids past the tokenizer's vocabulary (a padded embedding) are never sampled: decoding one
  // would end the run and lose its answer.
  torch::Tensor never_sampled =
      tokenizer ? undecodableIds(*tokenizer, logits.size(-1), logits.device()) : torch::Tensor();
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

  // Steps replay a captured CUDA graph where one applies and pays (decode_graph.h; on the CPU,
  // past 32k positions, and for TTT and SR-TTT layers decodeStep runs). Its tails get room for up
  // to 4,096 tokens at first and grow when a generation goes on past them.
  DecodeGraph* graph = plan.graph;
  std::unique_ptr<DecodeGraph> own_graph;
  if (!graph && !plan.op_by_op && !records_layers && stop.max_tokens > 1 &&
      DecodeGraph::generationRefusal(lm, state, state.length() + stop.max_tokens).empty()) {
    own_graph = std::make_unique<DecodeGraph>(
        lm, state, std::min<std::int64_t>(stop.max_tokens, 4096), bool(hooks.on_step));
    graph = own_graph.get();
  }
  std::optional<QueuedWorkDrain> drain;  // destroyed before own_graph
  if (graph) drain.emplace(lm.device());

  const std::int64_t replays_before = graph ? graph->replays() : 0;
  if (stop.max_tokens > 0 && lookaheadRefusal(lm, sampler, hooks).empty()) {
    decodeAhead(lm, state, logits, stop, never_sampled, graph, hooks, transcript, out);
  } else {
    decodeOneByOne(lm, state, logits, sampler, stop, never_sampled, graph, hooks, transcript, out);
  }
  if (graph) out.replayed_steps = graph->replays() - replays_before;
  return out;
}

}  // namespace studio::model

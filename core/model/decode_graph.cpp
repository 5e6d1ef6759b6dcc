#include "core/model/decode_graph.h"

#include "core/common/error.h"
#include "core/model/captured_step.h"
#include "core/model/decode_attention.h"
#include "core/model/fused_attention.h"
#include "core/model/kernel_switches.h"

namespace studio::model {

using torch::Tensor;

std::string DecodeGraph::refusal(const CausalLMImpl& lm, const ModelState& state) {
  if (environmentSwitch("STUDIO_DECODE_GRAPH", "off")) return "STUDIO_DECODE_GRAPH=off";
  if (!lm.device().is_cuda()) return "the model is not on CUDA";
  const std::string kernel = decodeAttentionKernelRefusal(lm.device(), lm.dtype(),
                                                          lm.config().head_dim,
                                                          kDecodeAttentionMaxSegments);
  if (!kernel.empty()) return kernel;
  const std::string model = lm.inPlaceRefusal();
  if (!model.empty()) return model;
  if (state.length() == 0) return "nothing has been read yet (decoding follows a prefill)";
  return {};
}

std::string DecodeGraph::generationRefusal(const CausalLMImpl& lm, const ModelState& state,
                                           std::int64_t final_length) {
  std::string why = refusal(lm, state);
  if (why.empty() && final_length > kDecodeGraphMaxContext && !flashAttentionChosen(lm)) {
    why = "past " + std::to_string(kDecodeGraphMaxContext) + " positions eager steps may be faster";
  }
  return why;
}

bool DecodeGraph::flashAttentionChosen(const CausalLMImpl& lm) {
  if (!environmentSwitch("STUDIO_DECODE_ATTENTION", "flash")) return false;
  const ModelConfig& c = lm.config();
  // Empty tensors of a step's shapes: only their dtype, device and sizes are read.
  const auto options = torch::TensorOptions(lm.dtype()).device(lm.device());
  const Tensor q = torch::empty({1, c.num_attention_heads, 1, c.head_dim}, options);
  const Tensor kv = torch::empty({1, c.num_key_value_heads, 0, c.head_dim}, options);
  return fusedSpanAttentionApplies(q, kv, kv);
}

#if defined(STUDIO_HAVE_CUDA_KERNELS)

struct DecodeGraph::Impl {
  Impl(CausalLMImpl& lm_in, ModelState& state_in)
      : lm(lm_in), state(state_in), captured(lm_in.device(), /*eager_runs=*/1) {}

  // One step in place, from the static inputs: logits [vocab].
  Tensor forward() {
    ForwardContext context;
    context.mode = AttentionMode::InPlace;
    context.state = &state;
    context.positions = position;
    context.key_count = key_count;
    if (flash) {
      context.span_query_bounds = query_bounds;
      context.span_key_bounds = key_bounds;
    }
    if (capture_queries) context.capture = &capture;
    const Tensor hidden = lm.forward(token, context);  // [1, 1, hidden]
    return lm.logits(hidden[0][0]);
  }

  CausalLMImpl& lm;
  ModelState& state;
  CapturedStep captured;
  bool capture_queries = false;
  bool flash = false;  // flashAttentionChosen when made

  // The segments a layer's cache may keep: flash reads one.
  std::size_t maxSegments() const { return flash ? 1 : kDecodeAttentionMaxSegments; }
  ForwardCapture capture;            // the graph's own tensors once captured
  std::int64_t room = 0;             // positions the tails last made room for
  std::int64_t capacity = 0;         // positions the tails hold
  std::int64_t first_length = 0;     // the state's length when the graph was made
  std::int64_t expected_length = 0;  // the state's length after the last step
  Tensor token, position, key_count;  // [1, 1], [1], [1] int64 on the device: the graph's inputs
  Tensor query_bounds, key_bounds;    // with flash: {0, 1} and {0, key count}, [2] int32 inputs too
  Tensor logits;                      // [vocab]: the step's output (the graph's, once captured)
};

DecodeGraph::DecodeGraph(CausalLMImpl& lm, ModelState& state, std::int64_t room,
                         bool capture_queries) {
  const std::string why = refusal(lm, state);
  if (!why.empty()) throwError(ErrorKind::Unsupported, "", "decode graph", why);
  if (room < 1) throwArgument("room", "must be at least 1");
  m_impl = std::make_unique<Impl>(lm, state);
  m_impl->capture_queries = capture_queries;
  const auto index = torch::TensorOptions(torch::kInt64).device(lm.device());
  m_impl->token = torch::zeros({1, 1}, index);
  m_impl->position = torch::zeros({1}, index);
  m_impl->key_count = torch::zeros({1}, index);
  m_impl->flash = flashAttentionChosen(lm);
  if (m_impl->flash) {
    const auto bounds = torch::TensorOptions(torch::kInt32).device(lm.device());
    m_impl->query_bounds = torch::tensor({0, 1}, bounds);
    m_impl->key_bounds = torch::zeros({2}, bounds);
  }
  m_impl->room = room;
  m_impl->capacity = state.length() + room;
  m_impl->first_length = state.length();
  m_impl->expected_length = state.length();
  torch::NoGradGuard no_grad;
  state.kv().prepareInPlace(m_impl->capacity, m_impl->maxSegments());
}

DecodeGraph::~DecodeGraph() = default;

Tensor DecodeGraph::step(std::int64_t token) {
  if (token < 0 || token >= m_impl->lm.config().vocab_size) {
    throwArgument("token", std::to_string(token) + " is outside the vocabulary");
  }
  return stepWith([&] { m_impl->token.fill_(token); });
}

Tensor DecodeGraph::step(const Tensor& token) {
  if (token.scalar_type() != torch::kInt64 || token.numel() != 1 ||
      token.device().type() != m_impl->lm.device().type()) {
    throwArgument("token", "expected one int64 id on " + m_impl->lm.device().str());
  }
  return stepWith([&] { m_impl->token.copy_(token.reshape({1, 1})); });
}

Tensor DecodeGraph::stepWith(const std::function<void()>& write_token) {
  Impl& s = *m_impl;
  if (s.state.length() != s.expected_length) {
    throwError(ErrorKind::Internal, "", "decode graph",
               "the state changed between two steps (" + std::to_string(s.expected_length) +
                   " tokens, now " + std::to_string(s.state.length()) + ")");
  }
  torch::NoGradGuard no_grad;
  const std::int64_t position = s.state.length();
  if (position + 1 > s.capacity) {
    // The tails are full: they grow (into new tensors the old graph does not know) by twice the
    // room they had, and the step is captured again.
    s.captured.reset();
    s.logits = Tensor();
    s.room *= 2;
    s.capacity = position + s.room;
    s.state.kv().prepareInPlace(s.capacity, s.maxSegments());
  }
  s.captured.run(
      [&] {
        write_token();
        s.position.fill_(position);
        s.key_count.fill_(position + 1);
        if (s.flash) s.key_bounds[1].fill_(position + 1);
      },
      [&] {
        // Run op by op or captured: the capture is filled anew (a replay leaves it as captured,
        // its tensors rewritten).
        if (s.capture_queries) {
          s.capture = ForwardCapture();
          s.capture.query_positions = {position};
        }
        s.logits = s.forward();
      });
  if (s.capture_queries) {
    s.capture.query_positions = {position};
    for (LayerCapture& layer : s.capture.layers) {
      if (!layer.q_positions.empty()) layer.q_positions = {position};
    }
  }
  const Tensor result = s.logits;
  s.state.kv().grow(1);
  s.state.advance(1);
  s.expected_length = s.state.length();
  return result;
}

void DecodeGraph::truncate(std::int64_t length) {
  Impl& s = *m_impl;
  if (length < s.first_length || length > s.state.length()) {
    throwArgument("length", "a decode graph made at " + std::to_string(s.first_length) +
                                " tokens cannot truncate its state of " +
                                std::to_string(s.state.length()) + " to " + std::to_string(length));
  }
  s.state.truncate(length);
  s.expected_length = length;
}

const ForwardCapture& DecodeGraph::capture() const {
  if (!m_impl->capture_queries) {
    throwError(ErrorKind::Internal, "", "decode graph", "made without capture_queries");
  }
  return m_impl->capture;
}

bool DecodeGraph::capturesQueries() const {
  return m_impl->capture_queries;
}

const char* DecodeGraph::attentionPath() const {
  return m_impl->flash ? "flash" : "decode kernel";
}

std::int64_t DecodeGraph::captures() const { return m_impl->captured.captures(); }
std::int64_t DecodeGraph::replays() const { return m_impl->captured.replays(); }
const std::string& DecodeGraph::captureFailure() const {
  return m_impl->captured.captureFailure();
}

#else

struct DecodeGraph::Impl {};

DecodeGraph::DecodeGraph(CausalLMImpl& lm, ModelState& state, std::int64_t, bool) {
  const std::string why = refusal(lm, state);
  throwError(ErrorKind::Unsupported, "", "decode graph",
             why.empty() ? "this build has no CUDA kernels" : why);
}

DecodeGraph::~DecodeGraph() = default;

Tensor DecodeGraph::step(std::int64_t) {
  throwError(ErrorKind::Unsupported, "", "decode graph", "this build has no CUDA kernels");
}

Tensor DecodeGraph::step(const Tensor&) {
  throwError(ErrorKind::Unsupported, "", "decode graph", "this build has no CUDA kernels");
}

Tensor DecodeGraph::stepWith(const std::function<void()>&) {
  throwError(ErrorKind::Unsupported, "", "decode graph", "this build has no CUDA kernels");
}

void DecodeGraph::truncate(std::int64_t) {
  throwError(ErrorKind::Unsupported, "", "decode graph", "this build has no CUDA kernels");
}

const ForwardCapture& DecodeGraph::capture() const {
  throwError(ErrorKind::Unsupported, "", "decode graph", "this build has no CUDA kernels");
}

bool DecodeGraph::capturesQueries() const {
  return false;
}

const char* DecodeGraph::attentionPath() const {
  return "decode kernel";
}

std::int64_t DecodeGraph::captures() const { return 0; }
std::int64_t DecodeGraph::replays() const { return 0; }
const std::string& DecodeGraph::captureFailure() const {
  static const std::string none;
  return none;
}

#endif

}  // namespace studio::model

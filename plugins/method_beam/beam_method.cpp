#include "plugins/method_beam/beam_method.h"

#include <algorithm>

#include "core/engine/method_steps.h"
#include "core/model/inference.h"
#include "plugins/method_support/method_support.h"

namespace studio::plugins {

namespace {

struct Beam {
  model::ModelState state{0};
  std::vector<std::int64_t> ids;  // scratchpad tokens so far
  double logprob = 0;
  torch::Tensor logits;           // [vocab]: the next token's prediction
  bool done = false;              // ended with EOS or wrote "Final:"
};

struct Expansion {
  std::size_t parent = 0;
  std::int64_t token = -1;        // −1: a finished beam carried over
  double logprob = 0;
};

}  // namespace

std::string BeamMethod::summary() const {
  return "Beam search over the scratchpad with a fixed total of added tokens, branching from one "
         "prefill; the most likely beam answers.";
}

std::vector<ParamSpec> BeamMethod::params() const {
  ParamSpec beams;
  beams.name = "beams";
  beams.type = ParamSpec::Type::Int;
  beams.default_value = 4;
  beams.min = 1;
  beams.max = 64;
  beams.help = "B: beams kept after every step";
  ParamSpec total;
  total.name = "total_tokens";
  total.type = ParamSpec::Type::Int;
  total.default_value = 8192;
  total.min = 0;
  total.max = 1 << 22;
  total.help = "scratchpad tokens added across all beams (each beam runs total/B steps)";
  return {beams, total};
}

double BeamMethod::extraFlops(const engine::FlopShape& shape, double context,
                              const nlohmann::json& params) const {
  const auto beams = params.at("beams").get<std::int64_t>();
  const auto steps = params.at("total_tokens").get<std::int64_t>() / beams;
  return static_cast<double>(beams) *
         engine::generationFlops(shape, context, static_cast<double>(steps));
}

nlohmann::json BeamMethod::sizeToBudget(const engine::FlopShape& shape, double context,
                                        double budget, nlohmann::json params) const {
  const auto beams = params.at("beams").get<std::int64_t>();
  params["total_tokens"] =
      beams * engine::thinkingTokensForBudget(shape, context, budget / static_cast<double>(beams));
  return params;
}

engine::RunResult BeamMethod::run(engine::RunContext& context) const {
  engine::RunResult result;
  const engine::PreparedPrompt& prompt = context.prompt(true);
  result.prompt_tokens = prompt.length();
  engine::Prefilled prefilled = engine::prefillPrompt(context, prompt);
  const auto width = static_cast<std::size_t>(context.params().at("beams").get<std::int64_t>());
  const std::int64_t steps = context.params().at("total_tokens").get<std::int64_t>() /
                             static_cast<std::int64_t>(width);
  const std::vector<std::int64_t> eos = context.stopIds(prompt);
  const engine::FlopShape shape = context.flopShape();
  model::ModelState& base = prefilled.state;  // the prompt; every beam shares it

  std::vector<Beam> beams(1);
  beams[0].state = base.fork();
  beams[0].logits = prefilled.logits;
  std::int64_t added = 0;
  for (std::int64_t step = 0; step < steps; ++step) {
    context.checkCancelled();
    context.progress("beam", step, steps);
    std::vector<Expansion> expansions;
    for (std::size_t b = 0; b < beams.size(); ++b) {
      if (beams[b].done) {
        expansions.push_back({b, -1, beams[b].logprob});
        continue;
      }
      auto logprobs = torch::log_softmax(beams[b].logits.to(torch::kFloat32), -1);  // [vocab]
      auto [top_values, top_tokens] = logprobs.topk(static_cast<std::int64_t>(width));  // [B]
      auto values = top_values.to(torch::kFloat64).cpu();
      auto tokens = top_tokens.cpu();
      for (std::int64_t i = 0; i < values.size(0); ++i) {
        expansions.push_back({b, tokens[i].item<std::int64_t>(),
                              beams[b].logprob + values[i].item<double>()});
      }
    }
    std::stable_sort(expansions.begin(), expansions.end(),
                     [](const Expansion& a, const Expansion& b) { return a.logprob > b.logprob; });
    expansions.resize(std::min(width, expansions.size()));
    if (std::all_of(expansions.begin(), expansions.end(),
                    [](const Expansion& e) { return e.token < 0; })) {
      break;  // every kept beam has finished
    }
    // How many children each parent has: the last child takes the parent's state, the others
    // copy its scratchpad part.
    std::vector<int> children(beams.size(), 0);
    for (const Expansion& e : expansions) ++children[e.parent];
    std::vector<Beam> next;
    for (const Expansion& e : expansions) {
      Beam& parent = beams[e.parent];
      Beam child;
      child.ids = parent.ids;
      child.done = parent.done;
      child.logits = parent.logits;
      if (--children[e.parent] == 0) {
        child.state = std::move(parent.state);
      } else {
        child.state = base.branch(parent.state);
      }
      child.logprob = e.logprob;
      if (e.token >= 0) {
        child.ids.push_back(e.token);
        if (std::find(eos.begin(), eos.end(), e.token) != eos.end()) {
          child.done = true;
        } else {
          const double length = static_cast<double>(child.state.length());
          child.logits = model::decodeStep(context.lm(), child.state, e.token);
          result.flops.extra += engine::generationFlops(shape, length, 1);
          ++added;
          const std::string text = context.tokenizer()->decode(child.ids);
          if (text.find("Final:") != std::string::npos) child.done = true;
        }
      }
      next.push_back(std::move(child));
    }
    beams = std::move(next);
  }
  context.progress("beam", steps, steps);

  auto best = std::max_element(beams.begin(), beams.end(), [](const Beam& a, const Beam& b) {
    return a.logprob < b.logprob;
  });
  const std::string scratchpad = context.tokenizer()->decode(best->ids);
  for (std::size_t i = 0; i < best->ids.size(); ++i) {
    context.emit(engine::TokenEvent{static_cast<std::int64_t>(i), best->ids[i],
                                    context.tokenizer()->decode({best->ids[i]}), 0.0,
                                    engine::TokenPhase::Think, 0});
  }
  // The best beam answers after "Final:" (greedy: the search already chose the scratchpad).
  ThinkingChain chain = thinkThenAnswer(context, best->state, best->logits, prompt, 0,
                                        /*exact=*/false, model::SamplingParams{}, 0, true,
                                        scratchpad);
  result.flops.extra += chain.flops;
  result.output = scratchpad + chain.output;
  result.answer = chain.answer;
  result.generated_tokens = added + chain.answer_tokens;
  engine::summarizeAnswerProbes(chain.first_probe, chain.answer_decode, result);
  nlohmann::json kept = nlohmann::json::array();
  for (const Beam& beam : beams) {
    kept.push_back({{"logprob", beam.logprob},
                    {"tokens", beam.ids.size()},
                    {"text", context.tokenizer()->decode(beam.ids)}});
  }
  result.details["beams"] = kept;
  result.details["scratchpad_tokens"] = best->ids.size();
  result.details["added_tokens"] = added;
  return result;
}

}  // namespace studio::plugins

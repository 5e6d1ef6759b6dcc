#include "plugins/method_best_of_n/best_of_n_method.h"

#include "core/engine/method_steps.h"
#include "core/task/seeded_rng.h"
#include "plugins/method_best_of_n/majority_vote.h"
#include "plugins/method_support/method_support.h"

namespace studio::plugins {

std::string BestOfNMethod::summary() const {
  return "Self-consistency: N thinking chains forked from one prefill, majority vote on the "
         "answers, ties by sequence log-probability.";
}

std::vector<ParamSpec> BestOfNMethod::params() const {
  ParamSpec n;
  n.name = "n";
  n.type = ParamSpec::Type::Int;
  n.default_value = 8;
  n.min = 1;
  n.max = 1024;
  n.help = "N: the number of sampled chains";
  ParamSpec tokens;
  tokens.name = "tokens_per_sample";
  tokens.type = ParamSpec::Type::Int;
  tokens.default_value = 1024;
  tokens.min = 0;
  tokens.max = 1 << 20;
  tokens.help = "scratchpad tokens of each chain (paper: 8192/N)";
  return {n, tokens, decodingParam(), exactThinkParam()};
}

double BestOfNMethod::extraFlops(const engine::FlopShape& shape, double context,
                                 const nlohmann::json& params) const {
  const auto n = static_cast<double>(params.at("n").get<std::int64_t>());
  const auto tokens = static_cast<double>(params.at("tokens_per_sample").get<std::int64_t>());
  return n * engine::generationFlops(shape, context, tokens);
}

nlohmann::json BestOfNMethod::sizeToBudget(const engine::FlopShape& shape, double context,
                                           double budget, nlohmann::json params) const {
  const auto n = static_cast<double>(params.at("n").get<std::int64_t>());
  params["tokens_per_sample"] = engine::thinkingTokensForBudget(shape, context, budget / n);
  return params;
}

engine::RunResult BestOfNMethod::run(engine::RunContext& context) const {
  engine::RunResult result;
  const engine::PreparedPrompt& prompt = context.prompt(true);
  result.prompt_tokens = prompt.length();
  engine::Prefilled prefilled = engine::prefillPrompt(context, prompt);
  const auto n = context.params().at("n").get<std::int64_t>();
  const auto tokens = context.params().at("tokens_per_sample").get<std::int64_t>();

  std::vector<Candidate> candidates;
  std::vector<ThinkingChain> chains;
  nlohmann::json samples = nlohmann::json::array();
  for (std::int64_t i = 0; i < n; ++i) {
    context.checkCancelled();
    context.progress("samples", i, n);
    // Each chain appends to its own fork; the prefill is shared, never recomputed.
    model::ModelState branch = prefilled.state.fork();
    const std::uint64_t seed = task::mixSeed(context.spec().seed + static_cast<std::uint64_t>(i));
    ThinkingChain chain =
        thinkThenAnswer(context, branch, prefilled.logits.clone(), prompt, tokens,
                        exactThinking(context),
                        samplingOf(context.params(), seed, true, context.model().config.generation),
                        static_cast<int>(i), /*probe_answer=*/true);
    result.flops.extra += chain.flops;
    result.generated_tokens += chain.think_tokens + chain.answer_tokens;
    candidates.push_back({chain.answer, chain.logprob});
    nlohmann::json sample = {
        {"answer", chain.answer}, {"logprob", chain.logprob}, {"think_tokens", chain.think_tokens}};
    if (chain.first_probe) sample["answer_query_mass"] = chain.first_probe->mean_mass;
    samples.push_back(std::move(sample));
    chains.push_back(std::move(chain));
  }
  context.progress("samples", n, n);
  const VoteOutcome vote = majorityVote(candidates);
  const ThinkingChain& winner = chains[vote.winner];
  result.output = winner.output;
  result.answer = winner.answer;
  // App. 12's mass is over the answer steps: those of the chain whose answer won the vote (each
  // chain reads the document through its own scratchpad). The prefill's last query predicts the
  // first scratchpad token, not the answer; it stays in the details.
  engine::summarizeAnswerProbes(winner.first_probe, winner.answer_decode, result);
  if (prefilled.probe) result.details["prefill_mass"] = prefilled.probe->mean_mass;
  result.details["votes"] = vote.tally;
  result.details["winner"] = vote.winner;
  result.details["samples"] = samples;
  return result;
}

}  // namespace studio::plugins

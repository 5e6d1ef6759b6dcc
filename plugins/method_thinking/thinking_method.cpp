#include "plugins/method_thinking/thinking_method.h"

#include "core/engine/method_steps.h"
#include "plugins/method_support/method_support.h"

namespace studio::plugins {

std::string ThinkingMethod::summary() const {
  return "Thinking template: a scratchpad of at most T_think tokens after the prefill (exactly "
         "T_think when FLOP-matched), then the answer after \"Final:\". In a Qwen3 chat template "
         "the scratchpad is the think block, asked for with /think.";
}

std::vector<ParamSpec> ThinkingMethod::params() const {
  ParamSpec think;
  think.name = "think_tokens";
  think.type = ParamSpec::Type::Int;
  think.default_value = 8192;
  think.min = 0;
  think.max = 1 << 20;
  think.help = "T_think: the most scratchpad tokens before \"Final:\" (paper: 8192)";
  return {think, decodingParam(), exactThinkParam()};
}

double ThinkingMethod::extraFlops(const engine::FlopShape& shape, double context,
                                  const nlohmann::json& params) const {
  return engine::generationFlops(shape, context,
                                 static_cast<double>(params.at("think_tokens").get<std::int64_t>()));
}

nlohmann::json ThinkingMethod::sizeToBudget(const engine::FlopShape& shape, double context,
                                            double budget, nlohmann::json params) const {
  params["think_tokens"] = engine::thinkingTokensForBudget(shape, context, budget);
  return params;
}

engine::RunResult ThinkingMethod::run(engine::RunContext& context) const {
  engine::RunResult result;
  const engine::PreparedPrompt& prompt = context.prompt(true);
  result.prompt_tokens = prompt.length();
  engine::Prefilled prefilled = engine::prefillPrompt(context, prompt);
  context.checkCancelled();
  const std::int64_t budget = context.params().at("think_tokens").get<std::int64_t>();
  ThinkingChain chain =
      thinkThenAnswer(context, prefilled.state, prefilled.logits, prompt, budget,
                      exactThinking(context),
                      samplingOf(context.params(), context.spec().seed, true,
                                 context.model().config.generation),
                      0, true);
  result.output = chain.output;
  result.answer = chain.answer;
  result.generated_tokens = chain.think_tokens + chain.answer_tokens;
  result.flops.extra = chain.flops;
  engine::summarizeAnswerProbes(chain.first_probe, chain.answer_decode, result);
  result.details["think_tokens"] = chain.think_tokens;
  result.details["think_budget"] = budget;
  result.details["scratchpad"] = chain.scratchpad;
  return result;
}

}  // namespace studio::plugins

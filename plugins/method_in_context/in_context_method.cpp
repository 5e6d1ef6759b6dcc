#include "plugins/method_in_context/in_context_method.h"

#include "core/engine/method_steps.h"
#include "plugins/method_support/method_support.h"

namespace studio::plugins {

std::string InContextMethod::summary() const {
  return "One prefill of the document and question, then the answer: the in-context baseline.";
}

std::vector<ParamSpec> InContextMethod::params() const { return {decodingParam()}; }

double InContextMethod::extraFlops(const engine::FlopShape&, double, const nlohmann::json&) const {
  return 0;
}

engine::RunResult InContextMethod::run(engine::RunContext& context) const {
  engine::RunResult result;
  const engine::PreparedPrompt& prompt = context.prompt(false);
  result.prompt_tokens = prompt.length();
  engine::Prefilled prefilled = engine::prefillPrompt(context, prompt);
  context.checkCancelled();
  decodeAnswer(context, prefilled.state, prefilled.logits, prompt, prefilled.probe,
               samplingOf(context.params(), context.spec().seed, false,
                          context.model().config.generation),
               result);
  return result;
}

}  // namespace studio::plugins

#include "core/engine/prompt_template.h"

namespace studio::engine {

namespace {

const char* kGenericTask = "Answer the question using the context.";
const char* kGenericConstraints = "Answer with the answer only.";

// `constraints`: whether the [CONSTRAINTS] section is written (App. 11's thinking has none).
BuiltPrompt build(const std::string& system, const PromptParts& parts, bool constraints,
                  const char* closing) {
  BuiltPrompt prompt;
  std::string& t = prompt.text;
  t += "[SYSTEM]\n" + system;
  t += "[TASK]\n" + (parts.task_description.empty() ? std::string(kGenericTask)
                                                    : parts.task_description) + "\n";
  t += "[CONTEXT]\n";
  prompt.context_offset = t.size();
  t += parts.context + "\n";
  t += "[QUESTION]\n" + parts.question + "\n";
  if (constraints) {
    t += "[CONSTRAINTS]\n" + (parts.constraints.empty() ? std::string(kGenericConstraints)
                                                        : parts.constraints) + "\n";
  }
  t += closing;
  return prompt;
}

}  // namespace

BuiltPrompt answerPrompt(const PromptParts& parts, bool closed) {
  return build(
      "You are a careful assistant. Use only the provided context.\n"
      "If the answer is not supported, output \"unknown\".\n",
      parts, true, closed ? "[ANSWER]\n" : "");
}

BuiltPrompt thinkingPrompt(const PromptParts& parts, bool closed) {
  return build(
      "Reason privately in [SCRATCHPAD],\n"
      "then provide a single final output after \"Final:\".\n"
      "If not supported by the context, output \"Final: unknown\".\n",
      parts, false, closed ? "[SCRATCHPAD]\n" : "");
}

const std::string& thinkingSuffix() {
  static const std::string suffix = "\n[FINAL]\nFinal:";
  return suffix;
}

}  // namespace studio::engine

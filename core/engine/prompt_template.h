#pragma once
// The prompt templates of the qTTT paper's App. 11: sections [SYSTEM] [TASK] [CONTEXT]
// [QUESTION] [CONSTRAINTS] [ANSWER]; thinking adds [SCRATCHPAD] and "[FINAL] Final:".
// Every method of a comparison uses the same template, so their prompts differ only where the
// method requires.

#include <cstddef>
#include <string>

namespace studio::engine {

struct PromptParts {
  std::string task_description;  // empty: a generic instruction
  std::string context;
  std::string question;
  std::string constraints;       // empty: "Answer with the answer only."
};

struct BuiltPrompt {
  std::string text;
  std::size_t context_offset = 0;  // byte offset of the context inside `text`
};

// Ends with "[ANSWER]\n": the model's next tokens are the answer.
BuiltPrompt answerPrompt(const PromptParts& parts);

// Ends with "[SCRATCHPAD]\n": the model thinks next; thinkingSuffix() then asks for the answer.
BuiltPrompt thinkingPrompt(const PromptParts& parts);

// Appended after the scratchpad: "\n[FINAL]\nFinal:".
const std::string& thinkingSuffix();

}  // namespace studio::engine

#pragma once
// The prompt templates of the qTTT paper's App. 11: sections [SYSTEM] [TASK] [CONTEXT]
// [QUESTION] [CONSTRAINTS] [ANSWER]; thinking has no [CONSTRAINTS] and closes with [SCRATCHPAD],
// then "[FINAL] Final:". Every method of a comparison uses the same template, so their prompts
// differ only where the method requires.
//
// With a chat template (prepared_prompt.h) the template without its closing section is the user
// turn, and the model's own turn takes the place of [ANSWER] or [SCRATCHPAD].

#include <cstddef>
#include <string>

namespace studio::engine {

struct PromptParts {
  std::string task_description;  // empty: a generic instruction
  std::string context;
  std::string question;
  std::string constraints;       // empty: "Answer with the answer only." (non-thinking only)
};

struct BuiltPrompt {
  std::string text;
  std::size_t context_offset = 0;  // byte offset of the context inside `text`
};

// Ends with "[ANSWER]\n" (`closed`) or after the constraints: the model's next tokens are the
// answer.
BuiltPrompt answerPrompt(const PromptParts& parts, bool closed = true);

// Ends with "[SCRATCHPAD]\n" (`closed`) or after the question: the model thinks next;
// thinkingSuffix() then asks for the answer.
BuiltPrompt thinkingPrompt(const PromptParts& parts, bool closed = true);

// Appended after the scratchpad of a plain prompt: "\n[FINAL]\nFinal:".
const std::string& thinkingSuffix();

}  // namespace studio::engine

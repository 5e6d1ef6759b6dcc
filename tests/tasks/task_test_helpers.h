#pragma once
// Shared by the [tasks] tests: generating through the registry as the CLI does, and slicing a
// context by the code point offsets of a target span.

#include <string>

#include "core/common/param_spec.h"
#include "core/common/span.h"
#include "core/common/utf8.h"
#include "core/task/task.h"
#include "support/test_paths.h"

namespace studio::task_test {

inline task::TaskItem generate(const std::string& name, const nlohmann::json& given,
                               std::uint64_t seed) {
  const auto* generator = task::TaskRegistry::instance().generator(name);
  if (!generator) throw std::runtime_error("no generator " + name);
  return generator->generate(resolveParams(name, generator->params(), given), seed);
}

// Python's context[start:end] for code point offsets.
inline std::string slice(const std::string& text, const Span& span) {
  const utf8::OffsetMap offsets(text);
  const std::size_t begin = offsets.byteOf(static_cast<std::size_t>(span.start));
  const std::size_t end = offsets.byteOf(static_cast<std::size_t>(span.end));
  return text.substr(begin, end - begin);
}

inline std::string fixture(const std::string& relative) {
  return std::string(studio::test_paths::kFixturesDir) + "/tasks/" + relative;
}

}  // namespace studio::task_test

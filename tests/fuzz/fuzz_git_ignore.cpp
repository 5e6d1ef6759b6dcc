// A repository's .gitignore: the first line of the input is a path to match, the rest the rules.
// Matching must stay linear in the pattern and the path (a hostile repository must not freeze
// the loader): libFuzzer's -timeout reports what does not.

#include "core/document/git_ignore.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  const auto [path, rules] = fuzz::splitInput(fuzz::asText(data, size), "\n");
  const document::GitIgnore ignore = document::GitIgnore::parse(rules);
  for (const bool folder : {false, true}) ignore.ignored(path, folder);
  document::globMatch(rules.substr(0, 256), path);
  return 0;
}

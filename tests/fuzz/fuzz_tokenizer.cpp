// tokenizer.json: the input loaded as one (then encoding a fixed text), and the input encoded
// and decoded by the bundled real tokenizers (Qwen3's, Mistral's Llama-2-style one, a GPT-2-like
// and a Llama-3-like one). Gemma 3's takes too long to load under ASan.

#include <memory>
#include <vector>

#include "core/common/error.h"
#include "core/tokenizer/tokenizer.h"
#include "fuzz_support.h"
#include "support/test_paths.h"

namespace {

using studio::tokenizer::Tokenizer;

const std::vector<std::shared_ptr<const Tokenizer>>& bundled() {
  static const std::vector<std::shared_ptr<const Tokenizer>> tokenizers = [] {
    const std::string dir = std::string(studio::test_paths::kFixturesDir) + "/tokenizer/";
    return std::vector<std::shared_ptr<const Tokenizer>>{
        Tokenizer::fromFile(dir + "qwen3/tokenizer.json.gz"),
        Tokenizer::fromFile(dir + "llama2/tokenizer.json.gz"),
        Tokenizer::fromFile(dir + "gpt2_like.json"), Tokenizer::fromFile(dir + "llama3_like.json")};
  }();
  return tokenizers;
}

void roundTrip(const Tokenizer& tokenizer, std::string_view text) {
  for (const bool special : {false, true}) {
    const auto encoding = tokenizer.encode(text, special);
    if (encoding.byte_offsets.size() != encoding.ids.size()) __builtin_trap();
    for (const auto& span : encoding.byte_offsets) {
      if (span.start < 0 || span.end < span.start ||
          span.end > static_cast<std::int64_t>(text.size())) {
        __builtin_trap();
      }
    }
    tokenizer.decode(encoding.ids, special);
  }
}

}  // namespace

// The bundled tokenizers load once before fuzzing starts: Qwen3's 150k-entry vocabulary takes
// seconds under ASan, which libFuzzer would otherwise count against the first input's timeout.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  bundled();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  const std::string_view text = fuzz::asText(data, size);
  if (!text.empty() && text.front() == '{') {
    try {
      const auto tokenizer = Tokenizer::fromJson(text, "tokenizer.json");
      roundTrip(*tokenizer, "Hello, world! 123 héllo\n\t  ünïcödé 你好 <|im_start|>");
    } catch (const Error&) {
    }
    return 0;
  }
  for (const auto& tokenizer : bundled()) roundTrip(*tokenizer, text);
  return 0;
}

// SentencePiece-style tokenizer files: a folder holding the input as tokenizer.model, which the
// studio refuses, and the input as tokenizer.json (Unigram and WordPiece refused, Metaspace and
// byte-fallback BPE loaded). A refusal must be a clean studio::Error naming the file.

#include <filesystem>

#include "core/common/error.h"
#include "core/tokenizer/tokenizer.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  const std::string_view text = fuzz::asText(data, size);
  const fuzz::InputFile model(text, "tokenizer.model");
  try {
    tokenizer::Tokenizer::fromFile(std::filesystem::path(model.path()).parent_path().string());
    __builtin_trap();  // a folder with only tokenizer.model is never loaded
  } catch (const Error& error) {
    if (std::string(error.what()).find("tokenizer.model") == std::string::npos) __builtin_trap();
  }
  try {
    tokenizer::Tokenizer::fromJson(text, "tokenizer.json");
  } catch (const Error&) {
  }
  return 0;
}

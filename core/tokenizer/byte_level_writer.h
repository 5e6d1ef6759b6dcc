#pragma once
// Writes the tokenizer.json of the studio's own small models: one token per byte (ids 0..255 in
// byte order, spelled with GPT-2's byte map) and special tokens after them, no merges. It is a
// regular Hugging Face byte-level BPE file, so `tokenizers`/`transformers` load it as they load
// Qwen's, and so does studio::tokenizer::Tokenizer. The small models need no vocabulary training.

#include <string>
#include <vector>

namespace studio::tokenizer {

struct ByteLevelVocabulary {
  // Ids 256, 257, ... in this order. The defaults are the three Qwen chat tokens.
  std::vector<std::string> special_tokens{"<|endoftext|>", "<|im_start|>", "<|im_end|>"};
};

// The JSON text. Throws studio::Error (Argument) for an empty or duplicate special token.
std::string byteLevelTokenizerJson(const ByteLevelVocabulary& vocabulary = {});

// Writes it to `path` (a file path). Throws studio::Error (Io) when the file cannot be written.
void writeByteLevelTokenizer(const std::string& path, const ByteLevelVocabulary& vocabulary = {});

}  // namespace studio::tokenizer

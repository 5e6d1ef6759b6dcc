#include "core/tokenizer/byte_level_writer.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "core/common/error.h"
#include "core/tokenizer/byte_level.h"

namespace studio::tokenizer {

std::string byteLevelTokenizerJson(const ByteLevelVocabulary& vocabulary) {
  using Json = nlohmann::ordered_json;
  const auto& spellings = byteSpellings();
  std::set<std::string> seen(spellings.begin(), spellings.end());
  Json added = Json::array();
  for (std::size_t i = 0; i < vocabulary.special_tokens.size(); ++i) {
    const std::string& token = vocabulary.special_tokens[i];
    const std::string field = "special_tokens[" + std::to_string(i) + "]";
    if (token.empty()) throwArgument(field, "is empty");
    if (!seen.insert(token).second) throwArgument(field, "\"" + token + "\" is already a token");
    added.push_back(Json{{"id", 256 + i},
                         {"content", token},
                         {"single_word", false},
                         {"lstrip", false},
                         {"rstrip", false},
                         {"normalized", false},
                         {"special", true}});
  }
  Json vocab = Json::object();
  for (int b = 0; b < 256; ++b) vocab[spellings[b]] = b;
  // The regular expression is irrelevant to the ids (there are no merges, every byte is a token);
  // use_regex=false keeps encoding linear and simple for other readers of the file.
  const Json byte_level = {{"type", "ByteLevel"},
                           {"add_prefix_space", false},
                           {"trim_offsets", false},
                           {"use_regex", false}};
  const Json root = {{"version", "1.0"},
                     {"truncation", nullptr},
                     {"padding", nullptr},
                     {"added_tokens", added},
                     {"normalizer", nullptr},
                     {"pre_tokenizer", byte_level},
                     {"post_processor", byte_level},
                     {"decoder", byte_level},
                     {"model",
                      {{"type", "BPE"},
                       {"dropout", nullptr},
                       {"unk_token", nullptr},
                       {"continuing_subword_prefix", nullptr},
                       {"end_of_word_suffix", nullptr},
                       {"fuse_unk", false},
                       {"byte_fallback", false},
                       {"ignore_merges", false},
                       {"vocab", vocab},
                       {"merges", Json::array()}}}};
  return root.dump(2) + "\n";
}

void writeByteLevelTokenizer(const std::string& path, const ByteLevelVocabulary& vocabulary) {
  const std::string text = byteLevelTokenizerJson(vocabulary);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(ErrorKind::Io, path, "", "cannot open for writing");
  out << text;
  out.close();
  if (!out) throw Error(ErrorKind::Io, path, "", "write failed");
}

}  // namespace studio::tokenizer

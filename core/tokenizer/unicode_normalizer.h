#pragma once
// The `normalizer` section of tokenizer.json: Unicode normalization forms (NFC for Qwen2/Qwen3),
// alone or in a Sequence, through ICU. Normalizing keeps track of where each output byte came
// from: text already in normal form keeps byte-exact offsets, and a run of characters that
// normalization rewrites (a base letter and its combining marks) maps as a whole to the source
// run it came from.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "core/tokenizer/aligned_text.h"

namespace studio::tokenizer {

class UnicodeNormalizer {
 public:
  enum class Form { NFC, NFD, NFKC, NFKD };

  // `config` is the JSON value of "normalizer" (null means none); `where` names the file for
  // errors. Throws studio::Error (Unsupported) for normalizers other than the forms above.
  static UnicodeNormalizer fromJson(const nlohmann::json& config, const std::string& where);

  bool empty() const { return m_forms.empty(); }

  // Normalizes valid UTF-8 `text`; the result's origins are byte offsets into `text`.
  AlignedText normalize(std::string_view text) const;

 private:
  std::vector<Form> m_forms;
};

}  // namespace studio::tokenizer

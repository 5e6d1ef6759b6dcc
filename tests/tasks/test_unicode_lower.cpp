// text::lower against Python's str.lower() on every script with case (the expected strings were
// printed by Python 3.11), and SQuAD's normalisation on them.

#include <catch2/catch.hpp>

#include "core/task/answer_extraction.h"
#include "core/task/scorers.h"
#include "core/task/unicode_text.h"

using namespace studio::task;

TEST_CASE("unicode text: lower() is Python's str.lower() on every cased script", "[tasks]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"İstanbul", "i\xCC\x87stanbul"},  // full mapping: İ becomes i + U+0307
      {"ΟΔΥΣΣΕΥΣ", "οδυσσευς"},         // final sigma
      {"ΣΑΣ Σ", "σας σ"},
      {"ԱԲԳ Ֆ", "աբգ ֆ"},               // Armenian
      {"ᲐᲑᲒ", "აბგ"},                    // Georgian Mtavruli
      {"ᎠᎡ", "ꭰꭱ"},                      // Cherokee
      {"𐐀𐐁", "𐐨𐐩"},                    // Deseret, outside the BMP
      {"ⰀⰁ", "ⰰⰱ"},                      // Glagolitic
      {"Ⅻ", "ⅻ"},
      {"ＡＢＣ", "ａｂｃ"},
      {"STRASSE ẞ", "strasse ß"},
      {"Ω", "ω"},  // the ohm sign
      {"ǅǄ", "ǆǆ"},
      {"ÀÉÎÕÜ", "àéîõü"},
      {"ΆΈ", "άέ"},
      {"ЁЖЯ", "ёжя"},
      {"plain ascii 123", "plain ascii 123"},
  };
  for (const auto& [text, expected] : cases) {
    INFO(text);
    CHECK(text::lower(text) == expected);
  }
  CHECK(text::lower(std::u32string_view(U"İ")).size() == 2);
}

TEST_CASE("unicode text: SQuAD EM lowercases Armenian, Cherokee and Georgian", "[tasks]") {
  CHECK(squadNormalize("ԱԲԳ") == "աբգ");
  CHECK(squadExactMatch("ᎠᎡ", "ꭰꭱ") == 1.0);
  CHECK(score("squad_em", "ᲐᲑᲒ", {"აბგ"}) == 1.0);
}

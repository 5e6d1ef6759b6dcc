#include "plugins/task_niah/niah_generator.h"

#include <array>
#include <cmath>

#include "core/common/utf8.h"
#include "core/task/seeded_rng.h"

namespace studio::plugins {

namespace {

// Low-entropy background: the same few plain sentences over and over.
constexpr std::array<const char*, 8> kBackground = {
    "The river runs slowly past the old stone mill.",
    "A grey cat sleeps on the warm window sill.",
    "The village road climbs gently toward the hills.",
    "Bread is baked early every morning in the square.",
    "The bell in the tower rings once each hour.",
    "Small boats rest along the quiet harbour wall.",
    "Wind moves through the tall grass in the meadow.",
    "Lamps are lit along the street when evening comes.",
};

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

std::string drawNeedle(std::uint64_t seed) {
  task::SeededRng rng = task::SeededRng::stream(seed, "niah/needle");
  for (;;) {
    std::string needle;
    bool letter = false, digit = false;
    for (int i = 0; i < 8; ++i) {
      const char c = kAlphabet[static_cast<std::size_t>(rng.uniformInt(0, kAlphabet.size() - 1))];
      (c >= '0' && c <= '9' ? digit : letter) = true;
      needle.push_back(c);
    }
    // Letters and digits both, so the needle cannot be read as a word or a number.
    if (letter && digit) return needle;
  }
}

}  // namespace

std::string NiahGenerator::summary() const {
  return "Needle in a haystack: an 8-character code at a chosen depth in repetitive background "
         "text; exact match";
}

std::vector<ParamSpec> NiahGenerator::params() const {
  std::vector<ParamSpec> specs;
  specs.push_back({"chars",
                   ParamSpec::Type::Int,
                   4000,
                   100.0,
                   20000000.0,
                   {},
                   "length of the background in characters (whole sentences, so the context is "
                   "this long plus the needle sentence and at most one background sentence)",
                   true});
  specs.push_back({"depth",
                   ParamSpec::Type::Float,
                   0.5,
                   0.0,
                   1.0,
                   {},
                   "where the needle goes: the fraction of the background before it",
                   false});
  return specs;
}

task::TaskItem NiahGenerator::generate(const nlohmann::json& params, std::uint64_t seed) const {
  const std::int64_t chars = params.at("chars").get<std::int64_t>();
  const double depth = params.at("depth").get<double>();
  const std::string needle = drawNeedle(seed);
  const std::string needle_sentence = "The access code is " + needle + ".";

  // Whole sentences until the background reaches `chars` characters (separators included).
  std::vector<const char*> sentences;
  std::int64_t length = 0;
  while (length < chars) {
    const char* sentence = kBackground[sentences.size() % kBackground.size()];
    length += static_cast<std::int64_t>(std::char_traits<char>::length(sentence)) +
              (sentences.empty() ? 0 : 1);
    sentences.push_back(sentence);
  }
  const std::size_t position =
      static_cast<std::size_t>(std::llround(depth * static_cast<double>(sentences.size())));

  std::string context;
  context.reserve(static_cast<std::size_t>(length) + needle_sentence.size() + 1);
  std::size_t needle_at = 0;
  for (std::size_t i = 0; i <= sentences.size(); ++i) {
    if (i == position) {
      if (!context.empty()) context.push_back(' ');
      needle_at = context.size() + needle_sentence.find(needle);
      context += needle_sentence;
    }
    if (i == sentences.size()) break;
    if (!context.empty()) context.push_back(' ');
    context += sentences[i];
  }

  task::TaskItem item;
  item.task = name();
  item.id =
      "niah-s" + std::to_string(seed) + "-c" + std::to_string(chars) + "-d" + std::to_string(depth);
  item.task_description = "Read the text and find the access code hidden in it.";
  item.question =
      "What is the access code mentioned in the text? Answer with the 8-character code only.";
  item.answers = {needle};
  item.scorer = "exact_match";
  const utf8::OffsetMap offsets(context);
  item.targets.push_back({static_cast<std::int64_t>(offsets.charOf(needle_at)),
                          static_cast<std::int64_t>(offsets.charOf(needle_at + needle.size()))});
  item.context = std::move(context);
  item.meta = {{"needle", needle},
               {"sentences", sentences.size()},
               {"needle_sentence_index", position},
               {"depth", sentences.empty() ? 0.0
                                           : static_cast<double>(position) /
                                                 static_cast<double>(sentences.size())}};
  return item;
}

}  // namespace studio::plugins

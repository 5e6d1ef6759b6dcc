#pragma once
// Turning a model's output into an answer (qTTT paper App. 11, "Post-processing and extraction"):
// the text after the last `Final:` for thinking runs, a choice letter for multiple choice, SQuAD
// normalisation for extractive QA, and the parsers of the sandbox tasks' structured answers.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace studio::task {

// Whitespace trimmed, then matching surrounding quotes ("", '', ``, “”, ‘’) removed, repeatedly.
std::string trimAndStripQuotes(std::string_view text);

// The substring after the last "Final:", trimmed and unquoted; nullopt when there is none.
std::optional<std::string> extractFinal(std::string_view output);
// What a scorer should see: for thinking runs the text after the last "Final:" (trimmed and
// unquoted), or the whole output when the model never wrote the tag; otherwise the output as it
// is, since benchmark scorers apply their own clean-up (first lines, sentence splits, ...).
std::string extractAnswer(std::string_view output, bool thinking);

// SQuAD's normalize_answer: lowercase, drop string.punctuation, drop the words a/an/the, collapse
// whitespace to single spaces.
std::string squadNormalize(std::string_view text);

// LongBench-v2's extract_answer: '*' removed, then "The correct answer is (X)", then
// "The correct answer is X", X in A-D; nullopt otherwise.
std::optional<char> extractLongBenchV2Choice(std::string_view output);
// A multiple-choice letter A-D: LongBench-v2's two forms, then "answer is X" / "answer: X" /
// "Answer X", then a parenthesised "(X)", then the first A-D standing alone as a word (App. 11:
// "regex-match [ABCD]"). Upper case only, so the article "a" is not read as a choice.
std::optional<char> extractChoice(std::string_view output);

// The tx_log answer {"bug_type": "NEGATIVE_BAL", "bug_location": "TX004"}, read tolerantly: JSON
// with double, single or no quotes, any case and spaces or hyphens in the type
// ("negative bal"), TX4 / TX004 / "tx 4"; without the keys, the first bug type and the first
// TX number in the text.
struct TxLogAnswer {
  std::string bug_type;         // canonical: CALC_ERROR, NEGATIVE_BAL, LOST_UPDATE, DUPLICATE_TXN
  std::int64_t tx_number = -1;  // -1 when no TX id was found
  bool operator==(const TxLogAnswer& other) const {
    return bug_type == other.bug_type && tx_number == other.tx_number;
  }
};
std::optional<TxLogAnswer> parseTxLogAnswer(std::string_view text);

// The code_bug answer `path:L<n>`, also read from "path:12", "path: line 12", "path line 12",
// "path, L12", "line 12 of path"/"L12 in path". Paths use '/' (a '\' is turned into '/'), a
// leading "./" is dropped. The first location in the text wins.
struct CodeBugAnswer {
  std::string path;
  std::int64_t line = -1;
};
std::optional<CodeBugAnswer> parseCodeBugAnswer(std::string_view text);

}  // namespace studio::task

#pragma once
// Scorers, selected by name (TaskItem::scorer, RunSpec::scorer). Each turns a prediction and the
// reference answers into a score in [0, 1]. The prediction is the model's answer after App. 11's
// extraction (answer_extraction.h: the text after "Final:" for thinking runs); scorers that read
// a structure (choice letters, tx_log JSON, code locations) parse it tolerantly themselves.
//
// Where a benchmark ships its own scoring script, the scorer reproduces that script, quirks
// included (noted at each function); where it could not be reproduced exactly, the note says
// what differs.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace studio::task {

struct TaskItem;

// --- The building blocks, one reference at a time ------------------------------------------------

// 1 when both sides are equal after trimAndStripQuotes and dropping one trailing '.'; case counts.
double exactMatchScore(std::string_view prediction, std::string_view reference);
// SQuAD: squadNormalize(prediction) == squadNormalize(reference).
double squadExactMatch(std::string_view prediction, std::string_view reference);
// SQuAD / LongBench qa_f1: token F1 of the normalised texts (tokens counted with multiplicity).
double squadF1(std::string_view prediction, std::string_view reference);
// ROUGE-L F1 of one sentence pair: LCS over whitespace tokens after lowercasing,
// F = 2PR/(P+R) with P = LCS/|prediction|, R = LCS/|reference|; 0 when either is empty.
double rougeL(std::string_view prediction, std::string_view reference);
// LongBench's rouge_score: the `rouge` package (pltrdy, 1.0.x) Rouge().get_scores(...)
// ["rouge-l"]["f"]: texts split into sentences at '.', summary-level union LCS over *sets* of
// words (exclusive mode), m and n the numbers of distinct words, F = 2PR/(P+R+1e-8); no
// lowercasing; 0 where the package raises (an empty hypothesis or reference).
double longbenchRougeL(std::string_view prediction, std::string_view reference);
// ROUGE-N and ROUGE-L F1 on rouge_score-style tokens (lowercase, every character outside a-z0-9
// a separator), as ZeroSCROLLS combines them. Porter stemming (use_stemmer=True there) is not
// applied.
double rougeNTokens(std::string_view prediction, std::string_view reference, int n);
double rougeLTokens(std::string_view prediction, std::string_view reference);

// RULER (eval/synthetic/constants.py), for one prediction; the prediction is first cleaned as
// RULER's postprocess_pred does (control characters become '\n', then strip).
// all: mean over references of [ref.lower() in pred.lower()]; part: max over references.
double rulerStringMatchAll(std::string_view prediction, const std::vector<std::string>& references);
double rulerStringMatchPart(std::string_view prediction,
                            const std::vector<std::string>& references);

// LongBench v1's metrics.py, one reference each.
double longbenchClassification(std::string_view prediction, std::string_view reference,
                               const std::vector<std::string>& all_classes);
double longbenchRetrieval(std::string_view prediction, std::string_view reference, bool chinese);
double longbenchCount(std::string_view prediction, std::string_view reference);
// code_sim_score: the first line without '`', '#' or "//", then fuzzywuzzy's fuzz.ratio / 100
// with difflib's SequenceMatcher (what fuzzywuzzy uses without python-Levenshtein, as in
// LongBench's requirements), rounded as Python's round() does.
double longbenchCodeSim(std::string_view prediction, std::string_view reference);
// difflib.SequenceMatcher(None, a, b).ratio() over code points, autojunk included.
double difflibRatio(std::u32string_view a, std::u32string_view b);
// LongBench's metric for `dataset` (its dataset2metric table, "_e" suffixes of LongBench-E
// accepted): "qa_f1", "qa_f1_zh", "rouge", "rouge_zh", "classification", "retrieval",
// "retrieval_zh", "count", "code_sim"; empty when the dataset is not LongBench's.
std::string longbenchMetricFor(const std::string& dataset);

// ZeroSCROLLS (paper §3.3): quality accuracy on the first A-D standing alone as a word; SpaceDigest
// exponential similarity 2^(-|p - p̂|/10) on the first percentage; BookSumSort concordance index
// of the predicted permutation (only digits, commas and spaces kept).
double zeroScrollsQualityAccuracy(std::string_view prediction, std::string_view reference);
double zeroScrollsExpSimilarity(std::string_view prediction, std::string_view reference);
double zeroScrollsConcordance(std::string_view prediction, std::string_view reference);
// The metric of a ZeroSCROLLS dataset: "rouge", "f1", "accuracy", "exp_similarity",
// "concordance"; empty when unknown.
std::string zeroScrollsMetricFor(const std::string& dataset);

// --- By name
// --------------------------------------------------------------------------------------

struct ScorerInfo {
  std::string name;
  std::string summary;
  // The item's meta supplies what a scorer needs besides the references (LongBench's dataset and
  // all_classes, ZeroSCROLLS's dataset).
  double (*score)(std::string_view prediction, const std::vector<std::string>& references,
                  const nlohmann::json& meta);
};

const std::vector<ScorerInfo>& scorers();
const ScorerInfo* findScorer(const std::string& name);  // nullptr when unknown

// Throws studio::Error (Argument) naming the scorer when it is unknown, and when there are no
// references. Invalid UTF-8 in the prediction is replaced, not refused.
double score(const std::string& scorer, std::string_view prediction,
             const std::vector<std::string>& references,
             const nlohmann::json& meta = nlohmann::json::object());
double scoreItem(const TaskItem& item, std::string_view prediction);

}  // namespace studio::task

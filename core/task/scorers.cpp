#include "core/task/scorers.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/task/answer_extraction.h"
#include "core/task/regex.h"
#include "core/task/task.h"
#include "core/task/unicode_text.h"

namespace studio::task {

namespace {

using Tokens = std::vector<std::u32string>;

std::string validUtf8(std::string_view bytes) {
  return utf8::isValid(bytes) ? std::string(bytes) : utf8::sanitize(bytes);
}

double f1FromCounts(double overlap, double predicted, double reference) {
  if (overlap <= 0 || predicted <= 0 || reference <= 0) return 0.0;
  const double precision = overlap / predicted;
  const double recall = overlap / reference;
  return 2 * precision * recall / (precision + recall);
}

// collections.Counter(prediction) & Counter(reference), summed.
template <typename T>
std::size_t multisetOverlap(const std::vector<T>& a, const std::vector<T>& b) {
  std::map<T, std::int64_t> counts;
  for (const T& x : a) ++counts[x];
  std::size_t overlap = 0;
  for (const T& x : b) {
    auto it = counts.find(x);
    if (it != counts.end() && it->second > 0) {
      --it->second;
      ++overlap;
    }
  }
  return overlap;
}

template <typename T>
std::vector<std::vector<std::int32_t>> lcsTable(const std::vector<T>& x, const std::vector<T>& y) {
  std::vector<std::vector<std::int32_t>> table(x.size() + 1,
                                               std::vector<std::int32_t>(y.size() + 1, 0));
  for (std::size_t i = 1; i <= x.size(); ++i) {
    for (std::size_t j = 1; j <= y.size(); ++j) {
      table[i][j] = x[i - 1] == y[j - 1] ? table[i - 1][j - 1] + 1
                                         : std::max(table[i - 1][j], table[i][j - 1]);
    }
  }
  return table;
}

template <typename T>
std::size_t lcsLength(const std::vector<T>& x, const std::vector<T>& y) {
  if (x.empty() || y.empty()) return 0;
  // Two rows are enough for the length.
  std::vector<std::int32_t> previous(y.size() + 1, 0), current(y.size() + 1, 0);
  for (std::size_t i = 1; i <= x.size(); ++i) {
    for (std::size_t j = 1; j <= y.size(); ++j) {
      current[j] =
          x[i - 1] == y[j - 1] ? previous[j - 1] + 1 : std::max(previous[j], current[j - 1]);
    }
    std::swap(previous, current);
  }
  return static_cast<std::size_t>(previous[y.size()]);
}

Tokens lowerWhitespaceTokens(std::string_view text_bytes) {
  const std::u32string cps = text::lower(std::u32string_view(utf8::decode(text_bytes)));
  return text::splitWhitespace(std::u32string_view(cps));
}

// rouge_score's tokenizer without stemming: lowercase, [^a-z0-9]+ -> " ", split.
std::vector<std::string> rougeScoreTokens(std::string_view text_bytes) {
  std::vector<std::string> tokens;
  std::string current;
  for (const char32_t c : text::lower(std::u32string_view(utf8::decode(text_bytes)))) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      current.push_back(static_cast<char>(c));
    } else if (!current.empty()) {
      tokens.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) tokens.push_back(std::move(current));
  return tokens;
}

// --- pltrdy/rouge, exclusive mode ------------------------------------------------------------

// [" ".join(s.split()) for s in text.split(".") if len(s) > 0], each as its words split(" ").
std::vector<Tokens> pltrdySentences(std::string_view text_bytes) {
  std::vector<Tokens> sentences;
  const std::u32string cps = utf8::decode(text_bytes);
  std::size_t start = 0;
  for (std::size_t i = 0; i <= cps.size(); ++i) {
    if (i < cps.size() && cps[i] != U'.') continue;
    if (i > start) {
      Tokens words = text::splitWhitespace(std::u32string_view(cps).substr(start, i - start));
      // "".split(" ") is [""]: a whitespace-only sentence is one empty word.
      if (words.empty()) words.emplace_back();
      sentences.push_back(std::move(words));
    }
    start = i + 1;
  }
  return sentences;
}

// _recon_lcs(x, y) as a set of words, walking the table exactly as the package does.
void reconLcsWords(const Tokens& x, const Tokens& y, std::set<std::u32string>& into) {
  const auto table = lcsTable(x, y);
  std::size_t i = x.size(), j = y.size();
  while (i > 0 && j > 0) {
    if (x[i - 1] == y[j - 1]) {
      into.insert(x[i - 1]);
      --i;
      --j;
    } else if (table[i - 1][j] > table[i][j - 1]) {
      --i;
    } else {
      --j;
    }
  }
}

// --- difflib.SequenceMatcher ---------------------------------------------------------------

class SequenceMatcher {
 public:
  SequenceMatcher(std::u32string_view a, std::u32string_view b) : m_a(a), m_b(b) {
    for (std::size_t j = 0; j < b.size(); ++j) m_b2j[b[j]].push_back(j);
    // autojunk: in a b of 200 or more elements, elements more frequent than 1% + 1 are
    // "popular" and left out of the index (they can still extend a match).
    if (b.size() >= 200) {
      const std::size_t ntest = b.size() / 100 + 1;
      for (auto it = m_b2j.begin(); it != m_b2j.end();) {
        it = it->second.size() > ntest ? m_b2j.erase(it) : std::next(it);
      }
    }
  }

  std::size_t matchingCharacters() const {
    std::size_t total = 0;
    std::vector<std::array<std::size_t, 4>> queue = {{0, m_a.size(), 0, m_b.size()}};
    while (!queue.empty()) {
      const auto [alo, ahi, blo, bhi] = queue.back();
      queue.pop_back();
      const auto [i, j, k] = findLongestMatch(alo, ahi, blo, bhi);
      if (k == 0) continue;
      total += k;
      if (alo < i && blo < j) queue.push_back({alo, i, blo, j});
      if (i + k < ahi && j + k < bhi) queue.push_back({i + k, ahi, j + k, bhi});
    }
    return total;
  }

 private:
  std::array<std::size_t, 3> findLongestMatch(std::size_t alo, std::size_t ahi, std::size_t blo,
                                              std::size_t bhi) const {
    std::size_t besti = alo, bestj = blo, bestsize = 0;
    std::unordered_map<std::size_t, std::size_t> j2len;
    for (std::size_t i = alo; i < ahi; ++i) {
      std::unordered_map<std::size_t, std::size_t> newj2len;
      auto it = m_b2j.find(m_a[i]);
      if (it != m_b2j.end()) {
        for (std::size_t j : it->second) {
          if (j < blo) continue;
          if (j >= bhi) break;
          std::size_t k = 1;
          if (j > 0) {
            auto prev = j2len.find(j - 1);
            if (prev != j2len.end()) k = prev->second + 1;
          }
          newj2len[j] = k;
          if (k > bestsize) {
            besti = i + 1 - k;
            bestj = j + 1 - k;
            bestsize = k;
          }
        }
      }
      j2len = std::move(newj2len);
    }
    // No junk function, so only the "non-junk" extensions apply (popular elements included).
    while (besti > alo && bestj > blo && m_a[besti - 1] == m_b[bestj - 1]) {
      --besti;
      --bestj;
      ++bestsize;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi &&
           m_a[besti + bestsize] == m_b[bestj + bestsize]) {
      ++bestsize;
    }
    return {besti, bestj, bestsize};
  }

  std::u32string_view m_a, m_b;
  std::unordered_map<char32_t, std::vector<std::size_t>> m_b2j;
};

// Python's round(): halves to even.
double pythonRound(double value) {
  return std::nearbyint(value);
}

std::vector<std::string> asciiDigitRuns(const std::string& text) {
  static const Regex kDigits(R"(\d+)");
  std::vector<std::string> out;
  for (const auto& match : kDigits.findAll(text)) out.emplace_back(match.group());
  return out;
}

std::string firstLine(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size() && text[start] == '\n') ++start;
  const std::size_t end = text.find('\n', start);
  return std::string(text.substr(start, end == std::string_view::npos ? text.npos : end - start));
}

std::vector<std::string> stringList(const nlohmann::json& value) {
  std::vector<std::string> out;
  if (!value.is_array()) return out;
  for (const auto& element : value) {
    if (element.is_string()) out.push_back(element.get<std::string>());
  }
  return out;
}

std::string metaString(const nlohmann::json& meta, const char* key) {
  if (meta.is_object() && meta.contains(key) && meta.at(key).is_string()) {
    return meta.at(key).get<std::string>();
  }
  return {};
}

template <typename Fn>
double maxOver(const std::vector<std::string>& references, Fn fn) {
  double best = 0.0;
  for (const std::string& reference : references) best = std::max(best, fn(reference));
  return best;
}

// --- Scorers by name ---------------------------------------------------------------------------

double scoreExact(std::string_view p, const std::vector<std::string>& refs, const nlohmann::json&) {
  return maxOver(refs, [&](const std::string& r) { return exactMatchScore(p, r); });
}

double scoreSquadEm(std::string_view p, const std::vector<std::string>& refs,
                    const nlohmann::json&) {
  return maxOver(refs, [&](const std::string& r) { return squadExactMatch(p, r); });
}

double scoreSquadF1(std::string_view p, const std::vector<std::string>& refs,
                    const nlohmann::json&) {
  return maxOver(refs, [&](const std::string& r) { return squadF1(p, r); });
}

double scoreRougeL(std::string_view p, const std::vector<std::string>& refs,
                   const nlohmann::json&) {
  return maxOver(refs, [&](const std::string& r) { return rougeL(p, r); });
}

// The letter a reference names: "B", "(B)", "b".
char referenceChoice(const std::string& reference) {
  std::string clean = trimAndStripQuotes(reference);
  if (clean.size() >= 3 && clean.front() == '(' && clean[2] == ')') clean = clean.substr(1, 1);
  if (clean.empty()) return 0;
  const char c = clean[0];
  return c >= 'a' && c <= 'd' ? static_cast<char>(c - 32) : c;
}

double scoreMcq(std::string_view p, const std::vector<std::string>& refs, const nlohmann::json&) {
  const auto choice = extractChoice(p);
  if (!choice) return 0.0;
  return maxOver(refs,
                 [&](const std::string& r) { return referenceChoice(r) == *choice ? 1.0 : 0.0; });
}

double scoreLongBenchV2(std::string_view p, const std::vector<std::string>& refs,
                        const nlohmann::json&) {
  const auto choice = extractLongBenchV2Choice(p);
  if (!choice) return 0.0;
  return maxOver(refs, [&](const std::string& r) {
    return text::strip(r) == std::string(1, *choice) ? 1.0 : 0.0;
  });
}

double scoreRulerAll(std::string_view p, const std::vector<std::string>& refs,
                     const nlohmann::json&) {
  return rulerStringMatchAll(p, refs);
}

double scoreRulerPart(std::string_view p, const std::vector<std::string>& refs,
                      const nlohmann::json&) {
  return rulerStringMatchPart(p, refs);
}

double scoreLongBench(std::string_view p, const std::vector<std::string>& refs,
                      const nlohmann::json& meta) {
  const std::string dataset = metaString(meta, "dataset");
  const std::string metric = longbenchMetricFor(dataset);
  if (metric.empty()) {
    throwError(ErrorKind::Argument, "", "longbench scorer",
               "meta.dataset '" + dataset + "' is not a LongBench dataset");
  }
  std::string prediction(p);
  std::string base = dataset;
  if (base.size() > 2 && base.compare(base.size() - 2, 2, "_e") == 0) base.resize(base.size() - 2);
  if (base == "trec" || base == "triviaqa" || base == "samsum" || base == "lsht") {
    prediction = firstLine(prediction);
  }
  const std::vector<std::string> all_classes = meta.is_object() && meta.contains("all_classes")
                                                   ? stringList(meta.at("all_classes"))
                                                   : std::vector<std::string>{};
  return maxOver(refs, [&](const std::string& r) -> double {
    if (metric == "qa_f1") return squadF1(prediction, r);
    if (metric == "qa_f1_zh") {
      // jieba's word segmentation is not available; characters stand in for words.
      const auto tokens = [](const std::string& s) {
        static const std::u32string kZhPunctuation =
            U"！？｡。＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『"
            U"』【】〔〕〖〗〘〙〚〛〜〝〞〟〰〾〿–—‘’‛“”„‟…‧﹏.";
        std::vector<std::u32string> out;
        for (const char32_t c : text::lower(std::u32string_view(utf8::decode(s)))) {
          if (text::isSpace(c) || text::isAsciiPunctuation(c) ||
              kZhPunctuation.find(c) != std::u32string::npos) {
            continue;
          }
          out.emplace_back(1, c);
        }
        return out;
      };
      const auto pt = tokens(prediction);
      const auto rt = tokens(r);
      return f1FromCounts(static_cast<double>(multisetOverlap(pt, rt)),
                          static_cast<double>(pt.size()), static_cast<double>(rt.size()));
    }
    if (metric == "rouge") return longbenchRougeL(prediction, r);
    if (metric == "rouge_zh") {
      // jieba again: characters, space separated, stand in for its words.
      const auto spaced = [](const std::string& s) {
        std::u32string out;
        for (char32_t c : utf8::decode(s)) {
          if (text::isSpace(c)) continue;
          if (!out.empty()) out.push_back(U' ');
          out.push_back(c);
        }
        return utf8::encode(out);
      };
      return longbenchRougeL(spaced(prediction), spaced(r));
    }
    if (metric == "classification") return longbenchClassification(prediction, r, all_classes);
    if (metric == "retrieval") return longbenchRetrieval(prediction, r, false);
    if (metric == "retrieval_zh") return longbenchRetrieval(prediction, r, true);
    if (metric == "count") return longbenchCount(prediction, r);
    return longbenchCodeSim(prediction, r);
  });
}

double scoreZeroScrolls(std::string_view p, const std::vector<std::string>& refs,
                        const nlohmann::json& meta) {
  const std::string dataset = metaString(meta, "dataset");
  const std::string metric = zeroScrollsMetricFor(dataset);
  if (metric.empty()) {
    throwError(ErrorKind::Argument, "", "zeroscrolls scorer",
               "meta.dataset '" + dataset + "' is not a ZeroSCROLLS dataset");
  }
  if (metric == "rouge") {
    // Per ROUGE type the best reference, then the geometric mean of the three.
    const double r1 = maxOver(refs, [&](const std::string& r) { return rougeNTokens(p, r, 1); });
    const double r2 = maxOver(refs, [&](const std::string& r) { return rougeNTokens(p, r, 2); });
    const double rl = maxOver(refs, [&](const std::string& r) { return rougeLTokens(p, r); });
    return std::cbrt(r1 * r2 * rl);
  }
  if (metric == "f1") return scoreSquadF1(p, refs, meta);
  if (metric == "accuracy") {
    return maxOver(refs, [&](const std::string& r) { return zeroScrollsQualityAccuracy(p, r); });
  }
  if (metric == "exp_similarity") {
    return maxOver(refs, [&](const std::string& r) { return zeroScrollsExpSimilarity(p, r); });
  }
  return maxOver(refs, [&](const std::string& r) { return zeroScrollsConcordance(p, r); });
}

double scoreTxLog(std::string_view p, const std::vector<std::string>& refs, const nlohmann::json&) {
  const auto predicted = parseTxLogAnswer(p);
  if (!predicted) return 0.0;
  return maxOver(refs, [&](const std::string& r) {
    const auto reference = parseTxLogAnswer(r);
    return reference && !reference->bug_type.empty() && *reference == *predicted ? 1.0 : 0.0;
  });
}

double scoreCodeBug(std::string_view p, const std::vector<std::string>& refs,
                    const nlohmann::json&) {
  const auto predicted = parseCodeBugAnswer(p);
  if (!predicted) return 0.0;
  return maxOver(refs, [&](const std::string& r) {
    const auto reference = parseCodeBugAnswer(r);
    if (!reference || reference->line != predicted->line) return 0.0;
    // The model may prefix the path with the repository's folder; a shorter path is not enough.
    const std::string& got = predicted->path;
    const std::string& want = reference->path;
    const bool same =
        got == want || (got.size() > want.size() &&
                        got.compare(got.size() - want.size(), want.size(), want) == 0 &&
                        got[got.size() - want.size() - 1] == '/');
    return same ? 1.0 : 0.0;
  });
}

}  // namespace

// --- Building blocks -----------------------------------------------------------------------------

double exactMatchScore(std::string_view prediction, std::string_view reference) {
  const auto clean = [](std::string_view s) {
    std::string out = trimAndStripQuotes(s);
    if (!out.empty() && out.back() == '.') {
      out.pop_back();
      out = trimAndStripQuotes(out);
    }
    return out;
  };
  return clean(prediction) == clean(reference) ? 1.0 : 0.0;
}

double squadExactMatch(std::string_view prediction, std::string_view reference) {
  return squadNormalize(prediction) == squadNormalize(reference) ? 1.0 : 0.0;
}

double squadF1(std::string_view prediction, std::string_view reference) {
  const auto p = text::splitWhitespace(squadNormalize(prediction));
  const auto r = text::splitWhitespace(squadNormalize(reference));
  return f1FromCounts(static_cast<double>(multisetOverlap(p, r)), static_cast<double>(p.size()),
                      static_cast<double>(r.size()));
}

double rougeL(std::string_view prediction, std::string_view reference) {
  const Tokens p = lowerWhitespaceTokens(prediction);
  const Tokens r = lowerWhitespaceTokens(reference);
  const double lcs = static_cast<double>(lcsLength(p, r));
  return f1FromCounts(lcs, static_cast<double>(p.size()), static_cast<double>(r.size()));
}

double longbenchRougeL(std::string_view prediction, std::string_view reference) {
  const auto hyp = pltrdySentences(prediction);
  const auto ref = pltrdySentences(reference);
  if (hyp.empty() || ref.empty()) return 0.0;
  std::set<std::u32string> ref_words, hyp_words, lcs_union;
  for (const auto& sentence : ref) ref_words.insert(sentence.begin(), sentence.end());
  for (const auto& sentence : hyp) hyp_words.insert(sentence.begin(), sentence.end());
  for (const auto& ref_sentence : ref) {
    for (const auto& hyp_sentence : hyp) reconLcsWords(ref_sentence, hyp_sentence, lcs_union);
  }
  const double llcs = static_cast<double>(lcs_union.size());
  const double recall = llcs / static_cast<double>(ref_words.size());
  const double precision = llcs / static_cast<double>(hyp_words.size());
  return 2.0 * ((precision * recall) / (precision + recall + 1e-8));
}

double rougeNTokens(std::string_view prediction, std::string_view reference, int n) {
  const auto ngrams = [n](const std::vector<std::string>& tokens) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i + static_cast<std::size_t>(n) <= tokens.size(); ++i) {
      std::string gram;
      for (int k = 0; k < n; ++k) gram += (k ? " " : "") + tokens[i + static_cast<std::size_t>(k)];
      out.push_back(std::move(gram));
    }
    return out;
  };
  const auto p = ngrams(rougeScoreTokens(prediction));
  const auto r = ngrams(rougeScoreTokens(reference));
  return f1FromCounts(static_cast<double>(multisetOverlap(p, r)), static_cast<double>(p.size()),
                      static_cast<double>(r.size()));
}

double rougeLTokens(std::string_view prediction, std::string_view reference) {
  const auto p = rougeScoreTokens(prediction);
  const auto r = rougeScoreTokens(reference);
  return f1FromCounts(static_cast<double>(lcsLength(p, r)), static_cast<double>(p.size()),
                      static_cast<double>(r.size()));
}

namespace {

std::string rulerClean(std::string_view prediction) {
  std::string out = validUtf8(prediction);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = '\n';
  }
  return text::lower(text::strip(out));
}

}  // namespace

double rulerStringMatchAll(std::string_view prediction,
                           const std::vector<std::string>& references) {
  if (references.empty()) return 0.0;
  const std::string pred = rulerClean(prediction);
  double hits = 0;
  for (const std::string& reference : references) {
    if (pred.find(text::lower(reference)) != std::string::npos) hits += 1;
  }
  return hits / static_cast<double>(references.size());
}

double rulerStringMatchPart(std::string_view prediction,
                            const std::vector<std::string>& references) {
  const std::string pred = rulerClean(prediction);
  for (const std::string& reference : references) {
    if (pred.find(text::lower(reference)) != std::string::npos) return 1.0;
  }
  return 0.0;
}

double longbenchClassification(std::string_view prediction, std::string_view reference,
                               const std::vector<std::string>& all_classes) {
  std::vector<std::string> matches;
  for (const std::string& name : all_classes) {
    if (prediction.find(name) != std::string_view::npos) matches.push_back(name);
  }
  // `for term in list: ... list.remove(term)` in Python skips the element after each removal;
  // the index walk below reproduces that.
  for (std::size_t i = 0; i < matches.size(); ++i) {
    const std::string term = matches[i];
    if (reference.find(term) != std::string_view::npos && term != reference) {
      matches.erase(std::find(matches.begin(), matches.end(), term));
    }
  }
  if (std::find(matches.begin(), matches.end(), std::string(reference)) == matches.end()) {
    return 0.0;
  }
  return 1.0 / static_cast<double>(matches.size());
}

double longbenchRetrieval(std::string_view prediction, std::string_view reference, bool chinese) {
  static const Regex kEnglish(R"(Paragraph (\d+))");
  static const Regex kChinese(R"(段落(\d+))");
  const std::string ref = validUtf8(reference);
  const auto id = (chinese ? kChinese : kEnglish).search(ref);
  if (!id) return 0.0;  // LongBench itself raises an IndexError here
  const std::string wanted(id->group(1));
  const auto numbers = asciiDigitRuns(validUtf8(prediction));
  if (numbers.empty()) return 0.0;
  const auto right = std::count(numbers.begin(), numbers.end(), wanted);
  return static_cast<double>(right) / static_cast<double>(numbers.size());
}

double longbenchCount(std::string_view prediction, std::string_view reference) {
  const auto numbers = asciiDigitRuns(validUtf8(prediction));
  if (numbers.empty()) return 0.0;
  const auto right = std::count(numbers.begin(), numbers.end(), std::string(reference));
  return static_cast<double>(right) / static_cast<double>(numbers.size());
}

double difflibRatio(std::u32string_view a, std::u32string_view b) {
  const std::size_t length = a.size() + b.size();
  if (length == 0) return 1.0;
  const SequenceMatcher matcher(a, b);
  return 2.0 * static_cast<double>(matcher.matchingCharacters()) / static_cast<double>(length);
}

double longbenchCodeSim(std::string_view prediction, std::string_view reference) {
  std::string_view rest = prediction;
  while (!rest.empty() && rest.front() == '\n') rest.remove_prefix(1);
  std::string chosen;
  std::size_t start = 0;
  while (start <= rest.size()) {
    const std::size_t end = std::min(rest.find('\n', start), rest.size());
    const std::string_view line = rest.substr(start, end - start);
    if (line.find('`') == line.npos && line.find('#') == line.npos &&
        line.find("//") == line.npos) {
      chosen = std::string(line);
      break;
    }
    start = end + 1;
  }
  // fuzzywuzzy returns 0 for an empty string on either side.
  if (chosen.empty() || reference.empty()) return 0.0;
  const double ratio = difflibRatio(utf8::decode(chosen), utf8::decode(reference));
  return pythonRound(100.0 * ratio) / 100.0;
}

std::string longbenchMetricFor(const std::string& dataset) {
  static const std::map<std::string, std::string> kTable = {
      {"narrativeqa", "qa_f1"},
      {"qasper", "qa_f1"},
      {"multifieldqa_en", "qa_f1"},
      {"multifieldqa_zh", "qa_f1_zh"},
      {"hotpotqa", "qa_f1"},
      {"2wikimqa", "qa_f1"},
      {"musique", "qa_f1"},
      {"dureader", "rouge_zh"},
      {"gov_report", "rouge"},
      {"qmsum", "rouge"},
      {"multi_news", "rouge"},
      {"vcsum", "rouge_zh"},
      {"trec", "classification"},
      {"triviaqa", "qa_f1"},
      {"samsum", "rouge"},
      {"lsht", "classification"},
      {"passage_retrieval_en", "retrieval"},
      {"passage_count", "count"},
      {"passage_retrieval_zh", "retrieval_zh"},
      {"lcc", "code_sim"},
      {"repobench-p", "code_sim"},
  };
  std::string base = dataset;
  if (!kTable.count(base) && base.size() > 2 && base.compare(base.size() - 2, 2, "_e") == 0) {
    base.resize(base.size() - 2);
  }
  const auto it = kTable.find(base);
  return it == kTable.end() ? std::string() : it->second;
}

double zeroScrollsQualityAccuracy(std::string_view prediction, std::string_view reference) {
  static const Regex kLetter(R"(\b([ABCD])\b)");
  const std::string p = validUtf8(prediction);
  const std::string r = validUtf8(reference);
  const auto predicted = kLetter.search(p);
  const auto wanted = kLetter.search(r);
  return predicted && wanted && predicted->group(1) == wanted->group(1) ? 1.0 : 0.0;
}

double zeroScrollsExpSimilarity(std::string_view prediction, std::string_view reference) {
  static const Regex kPercent(R"((\d+(?:\.\d+)?)\s*%)");
  const std::string p = validUtf8(prediction);
  const std::string r = validUtf8(reference);
  const auto predicted = kPercent.search(p);
  const auto wanted = kPercent.search(r);
  if (!predicted || !wanted) return 0.0;
  const double difference = std::abs(std::stod(std::string(predicted->group(1))) -
                                     std::stod(std::string(wanted->group(1))));
  return std::pow(2.0, -difference / 10.0);
}

double zeroScrollsConcordance(std::string_view prediction, std::string_view reference) {
  // Keep digits, commas and white space, split at commas; every piece must be one number.
  const auto parse = [](std::string_view text_bytes) -> std::vector<std::string> {
    std::vector<std::string> ids;
    std::string kept;
    for (char c : text_bytes) {
      if ((c >= '0' && c <= '9') || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        kept.push_back(c);
      }
    }
    std::size_t start = 0;
    while (start <= kept.size()) {
      const std::size_t end = std::min(kept.find(',', start), kept.size());
      const std::string piece = text::strip(std::string_view(kept).substr(start, end - start));
      if (piece.empty() || piece.find_first_not_of("0123456789") != std::string::npos) return {};
      // int() reads "07" as 7.
      const std::size_t first = std::min(piece.find_first_not_of('0'), piece.size() - 1);
      ids.push_back(piece.substr(first));
      start = end + 1;
    }
    return ids;
  };
  const auto predicted = parse(prediction);
  const auto wanted = parse(reference);
  if (wanted.empty() || predicted.size() != wanted.size()) return 0.0;
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    if (!position.emplace(predicted[i], i).second) return 0.0;  // a repeated id
  }
  for (const std::string& id : wanted) {
    if (!position.count(id)) return 0.0;
  }
  const std::size_t n = wanted.size();
  if (n < 2) return 1.0;
  std::size_t concordant = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (position[wanted[i]] < position[wanted[j]]) ++concordant;
    }
  }
  return static_cast<double>(concordant) / static_cast<double>(n * (n - 1) / 2);
}

std::string zeroScrollsMetricFor(const std::string& dataset) {
  static const std::map<std::string, std::string> kTable = {
      {"gov_report", "rouge"},
      {"summ_screen_fd", "rouge"},
      {"qmsum", "rouge"},
      {"squality", "rouge"},
      {"qasper", "f1"},
      {"narrative_qa", "f1"},
      {"musique", "f1"},
      {"quality", "accuracy"},
      {"space_digest", "exp_similarity"},
      {"book_sum_sort", "concordance"},
  };
  const auto it = kTable.find(dataset);
  return it == kTable.end() ? std::string() : it->second;
}

const std::vector<ScorerInfo>& scorers() {
  static const std::vector<ScorerInfo> kScorers = {
      {"exact_match", "equal after trimming, unquoting and one trailing '.'", scoreExact},
      {"squad_em", "SQuAD exact match of normalised texts", scoreSquadEm},
      {"squad_f1", "SQuAD token F1 of normalised texts, best reference", scoreSquadF1},
      {"mcq", "multiple choice: the letter A-D read from the answer (App. 11)", scoreMcq},
      {"longbench_v2", "LongBench-v2: 'The correct answer is (X)' as its pred.py reads it",
       scoreLongBenchV2},
      {"rouge_l", "ROUGE-L F1 over lowercased whitespace tokens, best reference", scoreRougeL},
      {"ruler_string_match_all", "RULER: share of references contained in the answer",
       scoreRulerAll},
      {"ruler_string_match_part", "RULER: 1 when any reference is contained in the answer",
       scoreRulerPart},
      {"longbench", "LongBench v1: the metric its eval.py uses for meta.dataset", scoreLongBench},
      {"zeroscrolls", "ZeroSCROLLS: the metric of meta.dataset (ROUGE, F1, accuracy, ES, C-index)",
       scoreZeroScrolls},
      {"tx_log", "tx_log: bug type and TX id both right", scoreTxLog},
      {"code_bug", "code_bug: path and line both right", scoreCodeBug},
  };
  return kScorers;
}

const ScorerInfo* findScorer(const std::string& name) {
  for (const ScorerInfo& info : scorers()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

double score(const std::string& scorer, std::string_view prediction,
             const std::vector<std::string>& references, const nlohmann::json& meta) {
  const ScorerInfo* info = findScorer(scorer);
  if (!info) {
    std::string known;
    for (const ScorerInfo& each : scorers()) known += (known.empty() ? "" : ", ") + each.name;
    throwArgument("scorer", "unknown scorer '" + scorer + "' (known: " + known + ")");
  }
  if (references.empty())
    throwArgument("scorer " + scorer, "no reference answers to score against");
  std::vector<std::string> clean_references;
  for (const std::string& reference : references) clean_references.push_back(validUtf8(reference));
  return info->score(validUtf8(prediction), clean_references, meta);
}

double scoreItem(const TaskItem& item, std::string_view prediction) {
  return score(item.scorer, prediction, item.answers, item.meta);
}

}  // namespace studio::task

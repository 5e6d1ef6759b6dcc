#include "analysis/token_heatmap_figure.h"

#include <algorithm>
#include <cmath>

#include "analysis/head_inspection.h"
#include "core/common/error.h"

namespace studio::analysis {

namespace {

void checkQuantity(const std::string& quantity) {
  const auto& names = tokenQuantityNames();
  if (std::find(names.begin(), names.end(), quantity) != names.end()) return;
  std::string known;
  for (const std::string& name : names) known += (known.empty() ? "" : ", ") + name;
  throwArgument("--quantity", "unknown per-token quantity '" + quantity + "' (" + known + ")");
}

std::string headText(const TokenHeatmapScope& scope) {
  if (scope.layer < 0 && scope.head < 0) return "mean over layers and heads";
  const std::string layer =
      scope.layer < 0 ? "mean over layers" : "layer " + std::to_string(scope.layer);
  const std::string head =
      scope.head < 0 ? "mean over heads" : "head " + std::to_string(scope.head);
  return layer + " · " + head;
}

// The document tokens [first, end) to draw of `n`.
std::pair<std::int64_t, std::int64_t> tokenRange(const TokenHeatmapScope& scope, std::int64_t n,
                                                 const AttentionStrip& strip,
                                                 const std::vector<float>& values) {
  const bool asked =
      scope.first_token != 0 || scope.end_token != std::numeric_limits<std::int64_t>::max();
  if (asked) {
    const std::int64_t first = std::clamp<std::int64_t>(scope.first_token, 0, n);
    const std::int64_t end = std::clamp<std::int64_t>(scope.end_token, first, n);
    if (end <= first) {
      throwArgument("--keys", "[" + std::to_string(scope.first_token) + ", " +
                                  std::to_string(scope.end_token) + ") covers none of the " +
                                  std::to_string(n) + " document tokens");
    }
    return {first, end};
  }
  if (n <= kTokenHeatmapTokens) return {0, n};
  std::int64_t centre = 0;
  if (!strip.targets.empty()) {
    centre = strip.targets.front().first;
  } else {
    float best = -INFINITY;
    for (std::int64_t t = 0; t < n; ++t) {
      const float v = std::fabs(values[static_cast<std::size_t>(t)]);
      if (std::isfinite(v) && v > best) {
        best = v;
        centre = t;
      }
    }
  }
  const std::int64_t first =
      std::clamp<std::int64_t>(centre - kTokenHeatmapTokens / 2, 0, n - kTokenHeatmapTokens);
  return {first, first + kTokenHeatmapTokens};
}

}  // namespace

const std::vector<std::string>& tokenQuantityNames() {
  static const std::vector<std::string> names = {"attention", "attention_qttt", "attention_change"};
  return names;
}

Figure tokenHeatmapFigure(const std::vector<const RunTrace*>& runs,
                          const TokenHeatmapScope& scope) {
  checkQuantity(scope.quantity);
  Figure f;
  f.name = "token_heatmap";
  const RunTrace* run = runs.empty() ? nullptr : runs.front();
  const bool after = scope.quantity == "attention_qttt";
  const bool change = scope.quantity == "attention_change";
  f.title = change  ? "Change of the answer's attention per token (after qTTT − after prefill)"
            : after ? "The answer's attention per token after qTTT"
                    : "The answer's attention per token after the prefill";
  if (run) f.title += " — " + run->label();
  f.empty_text = "No attention over a document in this run (runs with a document keep it).";
  if (!run) return f;
  const AttentionStrip strip = answerAttentionStrip(*run, scope.layer, scope.head);
  if (strip.rows.empty()) return f;
  if ((after || change) && strip.rows.size() < 2) {
    f.empty_text = run->label() + " has no attention after qTTT: " + scope.quantity +
                   " needs a qTTT run (attention shows the prefill's).";
    return f;
  }
  const auto n = static_cast<std::int64_t>(strip.rows.front().size());
  std::vector<float> values = strip.rows[after || change ? 1 : 0];
  if (change) {
    for (std::size_t t = 0; t < values.size(); ++t) values[t] -= strip.rows[0][t];
  }
  const auto [first, end] = tokenRange(scope, n, strip, values);
  FigureTokenText& text = f.token_text;
  text.first_token = first;
  text.tokens.assign(strip.tokens.begin() + first, strip.tokens.begin() + end);
  text.values.assign(values.begin() + first, values.begin() + end);
  for (const auto& [a, b] : strip.targets) {
    const std::int64_t from = std::max(a, first), to = std::min(b, end);
    if (to > from) text.marked.emplace_back(from - first, to - first);
  }
  text.diverging = change;
  text.log_scale = scope.log_scale && !change;
  text.value_label =
      (change ? "Δ attention weight (" : "attention weight (") + headText(scope) + ")";
  f.caption = "Document tokens " + std::to_string(first) + "–" + std::to_string(end - 1) + " of " +
              std::to_string(n) + ", the evidence underlined.";
  return f;
}

}  // namespace studio::analysis

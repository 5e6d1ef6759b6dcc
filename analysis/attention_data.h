#pragma once
// What the attention inspectors draw, as plain data: the layer × head grid, one head's strip of
// the answer's attention over the document, and a head's query × key window. Built from run
// traces (head_inspection.h), drawn by the ImGui views and exported as figures.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace studio::analysis {

struct HeadGrid {
  int layers = 0;
  int heads = 0;
  std::vector<float> values;  // [layers, heads], row-major; NaN: no value
  std::string title;          // "Target mass (answer query, after prefill)"
  std::string value_name = "target mass";
};

struct AttentionStrip {
  std::string title;                    // "layer 3 · head 5 — #2 qttt"
  int layer = -1, head = -1;            // the head shown (−1: an average)
  std::vector<std::string> row_names;   // "after prefill", "after qTTT"
  std::vector<std::vector<float>> rows;  // one weight per token, every row the same length
  std::vector<std::string> tokens;      // each token's text, for the tooltip
  std::vector<std::pair<std::int64_t, std::int64_t>> targets;  // token ranges of the evidence
};

struct AttentionWindowData {
  std::string title;                        // "layer 3 · head 5 — #2 qttt"
  std::string scope;                        // "256 queries of the question and answer × ..."
  std::string caption;                      // the run's parameters, for exported figures
  std::vector<std::string> phase_names;     // "after prefill", "after qTTT"
  std::vector<std::vector<float>> weights;  // per phase: queries × keys, row-major
  std::int64_t queries = 0, keys = 0;
  std::int64_t first_query = 0, first_key = 0;  // prompt positions of row 0 and column 0
  std::vector<std::string> query_tokens;        // each row's token text
  std::vector<std::string> key_tokens;          // each column's token text
  std::vector<std::pair<std::int64_t, std::int64_t>> targets;  // columns [a, b) of the evidence
};

}  // namespace studio::analysis

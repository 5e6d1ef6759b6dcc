#pragma once
// tx_log (qTTT paper §2.1, App. 8): a banking log with exactly one anomaly, which a model must name
// and locate: {"bug_type": "NEGATIVE_BAL", "bug_location": "TX004"}.
//
// The needle stays fixed while the haystack grows. The log is a window onto one seeded "ledger"
// generated line by line from TX001, where each line depends only on the lines before it, and the
// anomaly sits at a seeded ledger line K. So for a given seed the anomalous line (its text and its
// TX id) is the same for every `ops`:
//  - depth < 0 (default): K is one of TX004..TX024 and the log always starts at TX001, as in the
//    paper's Figure 7; more operations add lines after the anomaly.
//  - depth in [0, 1]: K is one of TX500..TX599 and the window of `ops` lines is placed so the
//    anomaly is at that relative position (0: first line, 1: last), lines before the anomaly and
//    after it growing together; the initial state printed is the ledger's state where the window
//    starts. A LOST_UPDATE or DUPLICATE_TXN needs the earlier line it refers to inside the window,
//    so the anomaly is never placed before that line.
// Lines after the anomaly continue from the balances as written (a wrong balance stays wrong), so
// every other line is consistent; after a NEGATIVE_BAL the next line pays the account back above
// zero, so that no later line starts negative.

#include "core/task/task.h"

namespace studio::plugins {

class TxLogGenerator : public task::TaskGenerator {
 public:
  std::string name() const override { return "tx_log"; }
  std::string summary() const override;
  std::vector<ParamSpec> params() const override;
  task::TaskItem generate(const nlohmann::json& params, std::uint64_t seed) const override;
};

}  // namespace studio::plugins

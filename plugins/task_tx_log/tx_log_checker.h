#pragma once
// Re-reads a tx_log context and checks every line against the invariants, independently of the
// generator: the old balance is the account's current balance, the new balance is old ∓ amount,
// no balance is negative, and no line repeats an earlier line's amount, payer and payee. A valid
// item has exactly one line that breaks exactly one of them, of its declared type.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace studio::plugins {

struct TxLogFinding {
  std::int64_t line_index = 0;  // 0-based among the log lines
  std::int64_t tx = 0;
  std::string text;  // the line
  // What the line breaks: CALC_ERROR, NEGATIVE_BAL, LOST_UPDATE (an old balance the account had
  // before its latest update), DUPLICATE_TXN, or STALE_UNKNOWN (an old balance that is neither
  // the current one nor the one before).
  std::vector<std::string> violations;
};

struct TxLogReport {
  std::int64_t lines = 0;
  std::int64_t first_tx = 0;
  std::int64_t initial_total = 0;
  std::vector<TxLogFinding> findings;  // lines with at least one violation
};

// Throws studio::Error (Format) naming the line when the text is not a tx_log (no initial state,
// a malformed line, TX numbers out of sequence, an account not in the initial state).
TxLogReport checkTxLog(std::string_view context);

}  // namespace studio::plugins

#pragma once
// The text of a tx_log item (qTTT paper App. 8, Figure 7), shared by the generator and the checker:
//
//   Initial state: {"account_A": 4000, "account_B": 4200, "total": 8200}
//   Transaction logs:
//   [TX001]: Transfer $107: A=4000 → 3893, B=4200 → 4307
//
// Each line moves `amount` from the payer (named first, its balance goes down) to the payee.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace studio::plugins {

enum class TxBugType { CalcError, NegativeBalance, LostUpdate, DuplicateTransaction };

// CALC_ERROR, NEGATIVE_BAL, LOST_UPDATE, DUPLICATE_TXN.
const char* txBugTypeName(TxBugType type);
std::optional<TxBugType> parseTxBugType(std::string_view name);
// The description the question lists for each type (Figure 7).
const char* txBugTypeDescription(TxBugType type);

struct TxLine {
  std::int64_t tx = 0;  // the number in TX001
  std::int64_t amount = 0;
  int payer = 0;  // account index: 0 is A
  int payee = 0;
  std::int64_t payer_old = 0, payer_new = 0;
  std::int64_t payee_old = 0, payee_new = 0;
};

std::string accountName(int index);     // 0 -> "A", 25 -> "Z"
std::string txId(std::int64_t number);  // 4 -> "TX004"
// "[TX001]: Transfer $107: A=4000 → 3893, B=4200 → 4307" (no newline).
std::string formatTxLine(const TxLine& line);

constexpr std::string_view kInitialStatePrefix = "Initial state: ";
constexpr std::string_view kLogHeader = "Transaction logs:";

}  // namespace studio::plugins

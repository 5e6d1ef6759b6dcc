#include "plugins/task_tx_log/tx_log_format.h"

#include <cstdio>

namespace studio::plugins {

const char* txBugTypeName(TxBugType type) {
  switch (type) {
    case TxBugType::CalcError:
      return "CALC_ERROR";
    case TxBugType::NegativeBalance:
      return "NEGATIVE_BAL";
    case TxBugType::LostUpdate:
      return "LOST_UPDATE";
    case TxBugType::DuplicateTransaction:
      return "DUPLICATE_TXN";
  }
  return "";
}

std::optional<TxBugType> parseTxBugType(std::string_view name) {
  for (TxBugType type : {TxBugType::CalcError, TxBugType::NegativeBalance, TxBugType::LostUpdate,
                         TxBugType::DuplicateTransaction}) {
    if (name == txBugTypeName(type)) return type;
  }
  return std::nullopt;
}

const char* txBugTypeDescription(TxBugType type) {
  switch (type) {
    case TxBugType::CalcError:
      return "Mathematical calculation is incorrect";
    case TxBugType::NegativeBalance:
      return "Account balance becomes negative";
    case TxBugType::LostUpdate:
      return "Concurrent update causes lost transaction";
    case TxBugType::DuplicateTransaction:
      return "Same transaction processed multiple times";
  }
  return "";
}

std::string accountName(int index) {
  return std::string(1, static_cast<char>('A' + index));
}

std::string txId(std::int64_t number) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "TX%03lld", static_cast<long long>(number));
  return buffer;
}

std::string formatTxLine(const TxLine& line) {
  std::string out = "[" + txId(line.tx) + "]: Transfer $" + std::to_string(line.amount) + ": ";
  out += accountName(line.payer) + "=" + std::to_string(line.payer_old) + " \u2192 " +
         std::to_string(line.payer_new) + ", ";
  out += accountName(line.payee) + "=" + std::to_string(line.payee_old) + " \u2192 " +
         std::to_string(line.payee_new);
  return out;
}

}  // namespace studio::plugins

#include "plugins/task_tx_log/tx_log_checker.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

#include "core/common/error.h"
#include "core/common/json_exact.h"
#include "core/task/regex.h"
#include "plugins/task_tx_log/tx_log_format.h"

namespace studio::plugins {

namespace {

struct AccountState {
  std::int64_t current = 0;
  bool has_previous = false;
  std::int64_t previous = 0;  // the balance before the latest update
};

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  // A final newline ends the last line rather than starting an empty one.
  if (lines.size() > 1 && lines.back().empty()) lines.pop_back();
  return lines;
}

[[noreturn]] void formatError(std::size_t line, const std::string& what) {
  throwError(ErrorKind::Format, "tx_log context", "line " + std::to_string(line + 1), what);
}

}  // namespace

TxLogReport checkTxLog(std::string_view context) {
  const auto lines = splitLines(context);
  if (lines.size() < 2 || lines[0].substr(0, kInitialStatePrefix.size()) != kInitialStatePrefix) {
    formatError(0, "expected \"" + std::string(kInitialStatePrefix) + "{...}\"");
  }
  if (lines[1] != kLogHeader) formatError(1, "expected \"" + std::string(kLogHeader) + "\"");

  std::map<std::string, AccountState> accounts;
  TxLogReport report;
  try {
    const auto state = nlohmann::json::parse(lines[0].substr(kInitialStatePrefix.size()));
    std::int64_t sum = 0;
    // Integers only: 1e300 would be cast (undefined behaviour), 5300.5 truncated.
    const auto balance = [](const nlohmann::json& value, const std::string& key) {
      if (!holdsExactly<std::int32_t>(value)) {
        formatError(
            0, "\"" + key + "\" in the initial state is not a 32-bit integer: " + value.dump());
      }
      return value.get<std::int64_t>();
    };
    for (const auto& [key, value] : state.items()) {
      if (key == "total") {
        report.initial_total = balance(value, key);
      } else if (key.rfind("account_", 0) == 0) {
        const std::int64_t current = balance(value, key);
        accounts[key.substr(8)].current = current;
        sum += current;
      } else {
        formatError(0, "unexpected key \"" + key + "\" in the initial state");
      }
    }
    if (sum != report.initial_total) {
      formatError(0, "total " + std::to_string(report.initial_total) + " is not the sum " +
                         std::to_string(sum) + " of the accounts");
    }
  } catch (const nlohmann::json::exception& error) {
    formatError(0, std::string("initial state is not valid JSON: ") + error.what());
  }

  static const task::Regex kLine(
      R"(^\[TX(\d+)\]: Transfer \$(\d+): ([A-Z]+)=(-?\d+) → (-?\d+), ([A-Z]+)=(-?\d+) → (-?\d+)$)");
  std::set<std::tuple<std::int64_t, std::string, std::string>> seen;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    const auto match = kLine.search(lines[i]);
    if (!match) formatError(i, "not a transfer line: " + std::string(lines[i]));
    // 32-bit, as the initial balances: the checks' sums and differences then cannot overflow.
    const auto number = [&](std::size_t group) {
      const std::string digits(match->group(group));
      std::int32_t value = 0;
      if (std::from_chars(digits.data(), digits.data() + digits.size(), value).ec != std::errc()) {
        formatError(i, "number " + digits + " is not a 32-bit integer");
      }
      return std::int64_t{value};
    };
    const std::int64_t tx = number(1);
    const std::int64_t index = static_cast<std::int64_t>(i) - 2;
    if (index == 0) report.first_tx = tx;
    if (tx != report.first_tx + index) {
      formatError(i, "TX number " + std::to_string(tx) + " out of sequence");
    }
    const std::int64_t amount = number(2);
    const std::string payer(match->group(3)), payee(match->group(6));
    if (payer == payee) formatError(i, "payer and payee are the same account");
    for (const std::string& account : {payer, payee}) {
      if (!accounts.count(account))
        formatError(i, "account " + account + " is not in the initial state");
    }
    const std::int64_t payer_old = number(4), payer_new = number(5);
    const std::int64_t payee_old = number(7), payee_new = number(8);

    TxLogFinding finding;
    finding.line_index = index;
    finding.tx = tx;
    finding.text = std::string(lines[i]);
    const auto add = [&](const char* violation) {
      for (const auto& existing : finding.violations) {
        if (existing == violation) return;
      }
      finding.violations.emplace_back(violation);
    };
    if (!seen.insert({amount, payer, payee}).second) add("DUPLICATE_TXN");
    for (const auto& [account, old_balance] :
         {std::pair{payer, payer_old}, std::pair{payee, payee_old}}) {
      const AccountState& state = accounts[account];
      if (old_balance == state.current) continue;
      add(state.has_previous && old_balance == state.previous ? "LOST_UPDATE" : "STALE_UNKNOWN");
    }
    if (payer_new != payer_old - amount || payee_new != payee_old + amount) add("CALC_ERROR");
    if (payer_new < 0 || payee_new < 0) add("NEGATIVE_BAL");
    if (!finding.violations.empty()) report.findings.push_back(std::move(finding));

    for (const auto& [account, new_balance] :
         {std::pair{payer, payer_new}, std::pair{payee, payee_new}}) {
      AccountState& state = accounts[account];
      state.previous = state.current;
      state.has_previous = true;
      state.current = new_balance;
    }
  }
  report.lines = static_cast<std::int64_t>(lines.size()) - 2;
  return report;
}

}  // namespace studio::plugins

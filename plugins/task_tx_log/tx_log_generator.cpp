#include "plugins/task_tx_log/tx_log_generator.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/task/seeded_rng.h"
#include "plugins/task_tx_log/tx_log_format.h"

namespace studio::plugins {

namespace {

using Key = std::tuple<std::int64_t, int, int>;  // amount, payer, payee

constexpr std::int64_t kMinAmount = 10;
constexpr int kMaxAttempts = 500;

struct Plan {
  TxBugType type = TxBugType::CalcError;
  std::int64_t anomaly = 0;   // ledger line K (its TX number)
  std::int64_t lookback = 0;  // LOST_UPDATE / DUPLICATE_TXN: K minus the line referred to
};

// Builds the ledger line by line. What a line may look like depends on the plan (the lines
// between a referred-to line and the anomaly keep the accounts involved untouched).
class Ledger {
 public:
  Ledger(const Plan& plan, int accounts, std::uint64_t seed, int attempt)
      : m_plan(plan),
        m_rng(task::SeededRng::stream(seed, "tx_log/ledger/" + std::to_string(attempt))) {
    for (int a = 0; a < accounts; ++a) m_balance.push_back(100 * m_rng.uniformInt(20, 60));
    m_initial = m_balance;
  }

  const std::vector<std::int64_t>& initial() const { return m_initial; }
  const std::vector<TxLine>& lines() const { return m_lines; }

  void extendTo(std::int64_t last_tx) {
    while (static_cast<std::int64_t>(m_lines.size()) < last_tx) {
      const std::int64_t tx = static_cast<std::int64_t>(m_lines.size()) + 1;
      TxLine line;
      if (tx == m_plan.anomaly) {
        line = anomalyLine(tx);
      } else if (tx == m_plan.anomaly + 1 && m_plan.type == TxBugType::NegativeBalance) {
        line = repaymentLine(tx);
      } else {
        line = normalLine(tx);
      }
      apply(line);
    }
  }

  // The balances before ledger line `tx` (1-based).
  std::vector<std::int64_t> balancesBefore(std::int64_t tx) const {
    std::vector<std::int64_t> balance = m_initial;
    for (std::int64_t i = 0; i + 1 < tx; ++i) {
      const TxLine& line = m_lines[static_cast<std::size_t>(i)];
      balance[static_cast<std::size_t>(line.payer)] = line.payer_new;
      balance[static_cast<std::size_t>(line.payee)] = line.payee_new;
    }
    return balance;
  }

 private:
  int accounts() const { return static_cast<int>(m_balance.size()); }
  std::int64_t& balance(int account) { return m_balance[static_cast<std::size_t>(account)]; }

  // Accounts the lines between a referred-to line and the anomaly must leave alone.
  bool between(std::int64_t tx) const {
    return m_plan.lookback > 0 && tx > m_plan.anomaly - m_plan.lookback && tx < m_plan.anomaly;
  }
  bool allowedPayer(std::int64_t tx, int account) const {
    if (!between(tx)) return true;
    if (m_plan.type == TxBugType::DuplicateTransaction) return account != m_reference.payer;
    return account != m_stale_account;
  }
  bool allowedPayee(std::int64_t tx, int account) const {
    if (!between(tx)) return true;
    return m_plan.type != TxBugType::LostUpdate || account != m_stale_account;
  }

  int pickAccount(const std::vector<int>& candidates) {
    if (candidates.empty()) {
      throwError(ErrorKind::Internal, "", "tx_log", "no account can take part in the next line");
    }
    return m_rng.pick(candidates);
  }

  std::vector<int> payers(std::int64_t tx, std::int64_t min_balance) const {
    std::vector<int> out;
    for (int a = 0; a < accounts(); ++a) {
      if (m_balance[static_cast<std::size_t>(a)] >= min_balance && allowedPayer(tx, a))
        out.push_back(a);
    }
    return out;
  }
  std::vector<int> payees(std::int64_t tx, int payer) const {
    std::vector<int> out;
    for (int a = 0; a < accounts(); ++a) {
      if (a != payer && allowedPayee(tx, a)) out.push_back(a);
    }
    return out;
  }

  TxLine consistent(std::int64_t tx, std::int64_t amount, int payer, int payee) {
    TxLine line;
    line.tx = tx;
    line.amount = amount;
    line.payer = payer;
    line.payee = payee;
    line.payer_old = balance(payer);
    line.payer_new = line.payer_old - amount;
    line.payee_old = balance(payee);
    line.payee_new = line.payee_old + amount;
    return line;
  }

  bool fresh(std::int64_t amount, int payer, int payee) const {
    return !m_keys.count(Key{amount, payer, payee});
  }

  TxLine normalLine(std::int64_t tx) {
    // The line a DUPLICATE_TXN repeats keeps its amount within half the payer's balance, so the
    // repetition can be paid without a negative balance.
    const bool duplicated =
        m_plan.type == TxBugType::DuplicateTransaction && tx == m_plan.anomaly - m_plan.lookback;
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
      const int payer = pickAccount(payers(tx, duplicated ? 2 * kMinAmount : kMinAmount));
      const int payee = pickAccount(payees(tx, payer));
      const std::int64_t cap = duplicated ? balance(payer) / 2 : balance(payer) * 9 / 10;
      const std::int64_t amount = m_rng.uniformInt(kMinAmount, std::max(kMinAmount, cap));
      if (!fresh(amount, payer, payee)) continue;
      TxLine line = consistent(tx, amount, payer, payee);
      if (duplicated) m_reference = line;
      if (m_plan.type == TxBugType::LostUpdate && tx == m_plan.anomaly - m_plan.lookback) {
        m_reference = line;
        m_stale_account = m_rng.bernoulli(0.5) ? payer : payee;
      }
      return line;
    }
    throwError(ErrorKind::Internal, "", "tx_log", "could not draw a fresh transfer");
  }

  TxLine anomalyLine(std::int64_t tx) {
    switch (m_plan.type) {
      case TxBugType::CalcError:
        return calcError(tx);
      case TxBugType::NegativeBalance:
        return negativeBalance(tx);
      case TxBugType::LostUpdate:
        return lostUpdate(tx);
      case TxBugType::DuplicateTransaction:
        return duplicate(tx);
    }
    throwError(ErrorKind::Internal, "", "tx_log", "unknown bug type");
  }

  TxLine calcError(std::int64_t tx) {
    TxLine line = normalLine(tx);
    // A plausible slip: one digit's worth off (3, 40, 700, ...), in either direction.
    const std::int64_t magnitude =
        m_rng.uniformInt(1, 9) * static_cast<std::int64_t>(std::pow(10, m_rng.uniformInt(0, 2)));
    std::int64_t delta = m_rng.bernoulli(0.5) ? magnitude : -magnitude;
    std::int64_t& target = m_rng.bernoulli(0.5) ? line.payer_new : line.payee_new;
    if (target + delta < 0) delta = magnitude;
    target += delta;
    return line;
  }

  TxLine negativeBalance(std::int64_t tx) {
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
      const int payer = pickAccount(payers(tx, kMinAmount));
      const int payee = pickAccount(payees(tx, payer));
      const std::int64_t overdraft = m_rng.uniformInt(
          1, std::max<std::int64_t>(1, std::min<std::int64_t>(balance(payer) / 4, 500)));
      const std::int64_t amount = balance(payer) + overdraft;
      if (fresh(amount, payer, payee)) return consistent(tx, amount, payer, payee);
    }
    throwError(ErrorKind::Internal, "", "tx_log", "could not draw an overdraft");
  }

  TxLine repaymentLine(std::int64_t tx) {
    const TxLine& overdraft = m_lines.back();
    const int debtor = overdraft.payer;
    const std::int64_t debt = -balance(debtor);
    int richest = debtor == 0 ? 1 : 0;
    for (int a = 0; a < accounts(); ++a) {
      if (a != debtor && balance(a) > balance(richest)) richest = a;
    }
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
      const std::int64_t amount =
          debt + m_rng.uniformInt(
                     kMinAmount,
                     std::max(kMinAmount, std::min<std::int64_t>(500, balance(richest) - debt)));
      if (amount <= balance(richest) && fresh(amount, richest, debtor)) {
        return consistent(tx, amount, richest, debtor);
      }
    }
    throwError(ErrorKind::Internal, "", "tx_log", "could not draw the repayment");
  }

  TxLine lostUpdate(std::int64_t tx) {
    const int stale_account = m_stale_account;
    const std::int64_t stale =
        stale_account == m_reference.payer ? m_reference.payer_old : m_reference.payee_old;
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
      const bool pays = stale >= 2 * kMinAmount && m_rng.bernoulli(0.5);
      std::vector<int> others;
      for (int a = 0; a < accounts(); ++a) {
        if (a != stale_account && (pays || balance(a) >= kMinAmount)) others.push_back(a);
      }
      const int other = pickAccount(others);
      const int payer = pays ? stale_account : other;
      const int payee = pays ? other : stale_account;
      const std::int64_t base = pays ? stale : balance(other);
      const std::int64_t amount = m_rng.uniformInt(kMinAmount, std::max(kMinAmount, base * 9 / 10));
      if (!fresh(amount, payer, payee)) continue;
      TxLine line = consistent(tx, amount, payer, payee);
      // The stale account's line starts from the balance it had before its latest update.
      if (pays) {
        line.payer_old = stale;
        line.payer_new = stale - amount;
      } else {
        line.payee_old = stale;
        line.payee_new = stale + amount;
      }
      return line;
    }
    throwError(ErrorKind::Internal, "", "tx_log", "could not draw a lost update");
  }

  TxLine duplicate(std::int64_t tx) {
    return consistent(tx, m_reference.amount, m_reference.payer, m_reference.payee);
  }

  void apply(const TxLine& line) {
    m_keys.insert(Key{line.amount, line.payer, line.payee});
    balance(line.payer) = line.payer_new;
    balance(line.payee) = line.payee_new;
    m_lines.push_back(line);
  }

  Plan m_plan;
  task::SeededRng m_rng;
  std::vector<std::int64_t> m_balance;
  std::vector<std::int64_t> m_initial;
  std::vector<TxLine> m_lines;
  std::set<Key> m_keys;
  TxLine m_reference;  // the line a LOST_UPDATE or DUPLICATE_TXN refers to
  int m_stale_account = -1;
};

std::string initialStateJson(const std::vector<std::int64_t>& balances) {
  // Written by hand to keep the paper's key order and spacing.
  std::string out = "{";
  std::int64_t total = 0;
  for (std::size_t a = 0; a < balances.size(); ++a) {
    out += "\"account_" + accountName(static_cast<int>(a)) + "\": " + std::to_string(balances[a]) +
           ", ";
    total += balances[a];
  }
  out += "\"total\": " + std::to_string(total) + "}";
  return out;
}

std::string taskDescription() {
  return "Analyze this banking transaction log for bugs. Rules:\n"
         "1. Total money must remain constant (conservation)\n"
         "2. No account can go negative\n"
         "3. All calculations must be mathematically correct";
}

std::string question() {
  std::string out = "Possible bug types (choose exactly one):\n";
  for (TxBugType type : {TxBugType::CalcError, TxBugType::NegativeBalance, TxBugType::LostUpdate,
                         TxBugType::DuplicateTransaction}) {
    out += std::string(txBugTypeName(type)) + ": " + txBugTypeDescription(type) + "\n";
  }
  out +=
      "Identify the bug type and the first offending transaction. Answer with JSON: "
      "{\"bug_type\": \"<TYPE>\", \"bug_location\": \"TX<id>\"}";
  return out;
}

}  // namespace

std::string TxLogGenerator::summary() const {
  return "Banking transaction log with exactly one anomaly (CALC_ERROR, NEGATIVE_BAL, LOST_UPDATE, "
         "DUPLICATE_TXN); answer its type and TX id (qTTT App. 8)";
}

std::vector<ParamSpec> TxLogGenerator::params() const {
  std::vector<ParamSpec> specs;
  specs.push_back({"ops",
                   ParamSpec::Type::Int,
                   50,
                   25.0,
                   500.0,
                   {},
                   "number of operations (log lines); the haystack that grows",
                   false});
  specs.push_back({"accounts",
                   ParamSpec::Type::Int,
                   2,
                   2.0,
                   26.0,
                   {},
                   "number of accounts, named A, B, C, ...",
                   false});
  specs.push_back({"bug_type",
                   ParamSpec::Type::Choice,
                   "random",
                   std::nullopt,
                   std::nullopt,
                   {"random", "CALC_ERROR", "NEGATIVE_BAL", "LOST_UPDATE", "DUPLICATE_TXN"},
                   "the anomaly; random: drawn from the seed",
                   false});
  specs.push_back(
      {"depth",
       ParamSpec::Type::Float,
       -1.0,
       -1.0,
       1.0,
       {},
       "relative position of the anomaly in the log (0: first line, 1: last); "
       "negative: one of TX004..TX024 with the log starting at TX001 (the paper's form)",
       false});
  return specs;
}

task::TaskItem TxLogGenerator::generate(const nlohmann::json& params, std::uint64_t seed) const {
  const std::int64_t ops = params.at("ops").get<std::int64_t>();
  const int accounts = static_cast<int>(params.at("accounts").get<std::int64_t>());
  const std::string bug_type = params.at("bug_type").get<std::string>();
  const double depth = params.at("depth").get<double>();
  const bool depth_mode = depth >= 0;

  Plan plan;
  if (bug_type == "random") {
    task::SeededRng type_rng = task::SeededRng::stream(seed, "tx_log/type");
    plan.type = static_cast<TxBugType>(type_rng.uniformInt(0, 3));
  } else {
    const auto parsed = parseTxBugType(bug_type);
    if (!parsed) throwArgument("tx_log.bug_type", "unknown bug type '" + bug_type + "'");
    plan.type = *parsed;
  }
  task::SeededRng position_rng = task::SeededRng::stream(seed, "tx_log/position");
  plan.anomaly = depth_mode ? position_rng.uniformInt(500, 599) : position_rng.uniformInt(4, 24);
  if (plan.type == TxBugType::DuplicateTransaction) {
    plan.lookback = position_rng.uniformInt(1, 3);
  } else if (plan.type == TxBugType::LostUpdate) {
    // With two accounts every line touches both, so only the line just before can be the one
    // whose update gets lost.
    plan.lookback = accounts == 2 ? 1 : position_rng.uniformInt(1, 3);
  }

  std::int64_t before = plan.anomaly - 1;  // lines shown before the anomaly
  if (depth_mode) {
    before = std::llround(depth * static_cast<double>(ops - 1));
    before = std::clamp(before, plan.lookback, ops - 1);
  }
  const std::int64_t first_tx = plan.anomaly - before;
  const std::int64_t last_tx = first_tx + ops - 1;

  // Rarely the balances leave no valid way to write the anomaly (every account that may pay is
  // nearly empty); then the ledger is drawn again from the next stream. Whether that happens is
  // decided by the lines up to the one after the anomaly, which do not depend on `ops`, so the
  // needle stays the same for every length.
  std::optional<Ledger> ledger;
  for (int attempt = 0; !ledger; ++attempt) {
    if (attempt == 64) {
      throwError(ErrorKind::Internal, "", "tx_log", "no consistent ledger after 64 attempts");
    }
    try {
      ledger.emplace(plan, accounts, seed, attempt);
      ledger->extendTo(plan.anomaly + 1);
    } catch (const Error& error) {
      if (error.kind() != ErrorKind::Internal) throw;
      ledger.reset();
    }
  }
  ledger->extendTo(last_tx);

  std::string context;
  context +=
      std::string(kInitialStatePrefix) + initialStateJson(ledger->balancesBefore(first_tx)) + "\n";
  context += std::string(kLogHeader) + "\n";
  std::size_t target_start = 0, target_end = 0;
  for (std::int64_t tx = first_tx; tx <= last_tx; ++tx) {
    const TxLine& line = ledger->lines()[static_cast<std::size_t>(tx - 1)];
    if (tx == plan.anomaly) target_start = context.size();
    context += formatTxLine(line);
    if (tx == plan.anomaly) target_end = context.size();
    if (tx != last_tx) context += "\n";
  }

  const std::string type_name = txBugTypeName(plan.type);
  const std::string location = txId(plan.anomaly);
  task::TaskItem item;
  item.task = name();
  item.id = "tx_log-s" + std::to_string(seed) + "-n" + std::to_string(ops) + "-a" +
            std::to_string(accounts) + "-" + bug_type +
            (depth_mode ? "-d" + std::to_string(depth) : "");
  item.task_description = taskDescription();
  item.question = question();
  item.answers = {"{\"bug_type\": \"" + type_name + "\", \"bug_location\": \"" + location + "\"}"};
  item.scorer = "tx_log";
  const utf8::OffsetMap offsets(context);
  item.targets.push_back({static_cast<std::int64_t>(offsets.charOf(target_start)),
                          static_cast<std::int64_t>(offsets.charOf(target_end))});
  item.context = std::move(context);
  item.meta = {
      {"bug_type", type_name},
      {"bug_location", location},
      {"anomaly_line", before + 1},
      {"first_tx", txId(first_tx)},
      {"last_tx", txId(last_tx)},
      {"ops", ops},
      {"accounts", accounts},
      {"depth", ops > 1 ? static_cast<double>(before) / static_cast<double>(ops - 1) : 0.0},
      {"lookback", plan.lookback}};
  return item;
}

}  // namespace studio::plugins

#include "app/cli/host_op_counter.h"

#include <ATen/record_function.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "core/common/error.h"

namespace studio::cli {

namespace {

struct Counts {
  std::mutex mutex;
  std::map<std::string, std::int64_t> by_name;
  std::int64_t total = 0;
};

Counts& counts() {
  static Counts value;
  return value;
}

std::atomic<bool> g_active{false};

// One entry per operator running on this thread, innermost last: whether it called another.
thread_local std::vector<bool> t_called_another;

bool onlyViewsOrAllocates(const std::string& name) {
  static const std::unordered_set<std::string> names = {
      "aten::empty",     "aten::empty_strided", "aten::empty_like",    "aten::as_strided",
      "aten::view",      "aten::_reshape_alias", "aten::reshape",      "aten::_unsafe_view",
      "aten::expand",    "aten::unsqueeze",     "aten::squeeze",       "aten::permute",
      "aten::transpose", "aten::t",             "aten::select",        "aten::slice",
      "aten::narrow",    "aten::detach",        "aten::alias",         "aten::lift_fresh",
      "aten::resize_",   "aten::set_",          "aten::result_type",   "aten::split",
      "aten::chunk",     "aten::unbind",        "aten::view_as",       "aten::expand_as",
      "aten::flatten",   "aten::unflatten",     "aten::movedim",       "aten::contiguous",
      "aten::to",        "aten::resolve_conj",  "aten::resolve_neg",   "aten::promote_types",
      "aten::is_same_size", "aten::_has_compatible_shallow_copy_type"};
  return names.count(name) > 0;
}

// Whether a call is one that counts: an aten operator that does more than make a view, allocate or
// ask a question of its arguments. Autograd's evaluate_function entries are not operators.
bool isCounted(const char* name) {
  const std::string text = name;
  return text.rfind("aten::", 0) == 0 && !onlyViewsOrAllocates(text);
}

// A call counts when it is a leaf among the calls that count: mm asks resolve_conj and reductions
// allocate through empty, and are still leaves.
std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& call) {
  if (!t_called_another.empty() && isCounted(call.name())) t_called_another.back() = true;
  t_called_another.push_back(false);
  return nullptr;
}

void onEnd(const at::RecordFunction& call, at::ObserverContext*) {
  if (t_called_another.empty()) return;  // started before the counter
  const bool leaf = !t_called_another.back();
  t_called_another.pop_back();
  if (!leaf || !g_active.load() || !isCounted(call.name())) return;
  Counts& c = counts();
  const std::lock_guard<std::mutex> lock(c.mutex);
  ++c.by_name[call.name()];
  ++c.total;
}

}  // namespace

HostOpCounter::HostOpCounter() {
  if (g_active.exchange(true)) {
    throwError(ErrorKind::Internal, "", "host op counter", "another counter is already counting");
  }
  {
    Counts& c = counts();
    const std::lock_guard<std::mutex> lock(c.mutex);
    c.by_name.clear();
    c.total = 0;
  }
  m_handle = at::addGlobalCallback(
      at::RecordFunctionCallback(onStart, onEnd).scopes({at::RecordScope::FUNCTION}));
}

HostOpCounter::~HostOpCounter() {
  at::removeCallback(m_handle);
  g_active.store(false);
}

std::int64_t HostOpCounter::count() const {
  Counts& c = counts();
  const std::lock_guard<std::mutex> lock(c.mutex);
  return c.total;
}

std::vector<std::pair<std::string, std::int64_t>> HostOpCounter::top(std::size_t limit) const {
  std::vector<std::pair<std::string, std::int64_t>> rows;
  {
    Counts& c = counts();
    const std::lock_guard<std::mutex> lock(c.mutex);
    rows.assign(c.by_name.begin(), c.by_name.end());
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (rows.size() > limit) rows.resize(limit);
  return rows;
}

}  // namespace studio::cli

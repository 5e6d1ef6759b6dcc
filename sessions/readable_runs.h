#pragma once
// Reading many runs of a session when some may be damaged (docs/sessions.md, "A damaged run"):
// a run whose stored fields cannot be read (a hand-edited spec_json, a mistyped artifact) must
// not stop the other runs being shown, exported or summarised. It is set aside with the error
// that names its field, and whoever read the runs says which were left out.

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/common/error.h"
#include "sessions/session_reader.h"

namespace studio::sessions {

// A run left out, and why: the studio::Error's message, which names the file, run and field.
struct UnreadableRun {
  std::int64_t id = 0;
  std::string error;
};

// For each of `runs` in order: value = read(run), then use(run, value). When read throws
// studio::Error the run is listed (in order) and the next one is read; an exception from `use`
// (writing an output file, say) or any other exception propagates. So `read` only reads, and an
// error it throws is about the run.
template <class Read, class Use>
std::vector<UnreadableRun> readEachRun(const std::vector<RunSummary>& runs, const Read& read,
                                       const Use& use) {
  std::vector<UnreadableRun> unreadable;
  for (const RunSummary& run : runs) {
    std::optional<std::invoke_result_t<const Read&, const RunSummary&>> value;
    try {
      value.emplace(read(run));
    } catch (const Error& error) {
      unreadable.push_back({run.id, error.what()});
      continue;
    }
    use(run, std::move(*value));
  }
  return unreadable;
}

// "cannot read run 3, left out: <error>", one line per run (each ending in '\n'): what a command
// prints on stderr after it has done the rest.
std::string unreadableRunsReport(const std::vector<UnreadableRun>& unreadable);

}  // namespace studio::sessions

#pragma once
// Per-run results as JSON lines, one object per run, as lm-evaluation-harness's --log_samples
// writes one per document: what was asked (task, item, seed, length, method and its resolved
// parameters, a hash of the prompt's inputs), what came out (output, extracted answer) and how
// it scored (references, score, target mass). `sweep --log-samples` and `export --samples` write
// them (docs/reproducing.md lists the fields).

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "core/engine/run_result.h"
#include "core/engine/run_spec.h"
#include "sessions/session_export.h"

namespace studio::sessions {

struct RunSummary;

// The record of one stored run.
nlohmann::json sampleRecord(const RunSummary& run, const engine::RunSpec& spec,
                            const engine::RunResult& result);

// One line per selected run, in id order, written atomically to `path`. Returns the file and
// the lines (`runs`). Throws studio::Error: Session naming the run when it does not exist or the
// one selected run cannot be read, Io naming the file. Of all runs, one that cannot be read is
// left out (every line is a whole record) and listed in the summary.
ExportSummary writeSampleLog(const SessionStore& store, RunSelection runs, const std::string& path);

}  // namespace studio::sessions

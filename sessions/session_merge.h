#pragma once
// Merging sessions into one new session: the shard sessions of a Slurm array sweep
// (docs/cluster.md), or any sessions a person wants side by side.
//
// - Documents are deduplicated by content hash and models by (path, config hash), as a store
//   deduplicates them on insert; runs get new ids in the order of the inputs and their own ids;
//   every event, probe row and artifact follows its run.
// - A run is copied once: a run identical to one already copied (same spec, status, start and end:
//   the same file given twice, or a copy of it) is left out, and so is a completed run of a sweep
//   cell (task_meta.sweep_key) that the merge already holds completed, so no cell counts twice.
// - Every input is checked (SessionStore's read-only open with PRAGMA quick_check) before anything
//   is written: a session of a newer schema, a damaged file or another program's SQLite file is
//   refused with its name. The output is written to a temporary file beside it and renamed into
//   place only when complete, so a failed merge leaves no output.

#include <cstdint>
#include <string>
#include <vector>

namespace studio::sessions {

struct MergeInputReport {
  std::string path;
  std::int64_t runs_copied = 0;
  std::int64_t runs_already_merged = 0;      // identical to a run copied before
  std::int64_t cells_already_completed = 0;  // completed sweep cells another input completed first
  std::int64_t documents_added = 0;
  std::int64_t models_added = 0;
  std::int64_t event_rows_copied = 0;  // rows of the event tables, probe_stats and artifacts
};

struct MergeReport {
  std::vector<MergeInputReport> inputs;
  std::int64_t runs = 0;
  std::int64_t documents = 0;
  std::int64_t models = 0;
  std::int64_t event_rows = 0;
};

struct MergeOptions {
  // Replace an existing output file (it is never one of the inputs).
  bool replace_output = false;
};

// Writes the merge of `inputs` to `output`. Throws studio::Error (Session) naming the file: an
// input that cannot be merged, an output that exists (without replace_output) or is an input.
MergeReport mergeSessions(const std::vector<std::string>& inputs, const std::string& output,
                          const MergeOptions& options = {});

}  // namespace studio::sessions

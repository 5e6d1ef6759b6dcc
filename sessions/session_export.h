#pragma once
// Exports of a session's runs for people who analyse them elsewhere (docs/sessions.md, "Export").
//   JSON: one document {format, session, schema_version, documents, models, runs: [{..., spec,
//         result, event_counts, events: [{seq, kind, ...fields}]}]}.
//   CSV:  PATH is the runs table (one row per run, every column of `runs` plus document_source
//         and model_path); beside it, one file per table with the selected runs' rows:
//         <stem>.documents.csv, <stem>.models.csv, <stem>.<event table>.csv (probe_stats too).
//         Columns are the schema's, so the CSVs read like the tables in pandas.
// Files are written under a temporary name and renamed when complete, so an export that fails
// leaves no half-written file.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sessions/readable_runs.h"

namespace studio::sessions {

class SessionStore;

// Which runs to export: one, or all (std::nullopt).
using RunSelection = std::optional<std::int64_t>;

// What an export wrote: its files (the main one first), how many runs and events, and the runs
// of an export of all that could not be read and were left out.
struct ExportSummary {
  std::vector<std::string> files;
  std::size_t runs = 0;
  std::size_t events = 0;
  std::vector<UnreadableRun> unreadable;
};

// Throw studio::Error: Session naming the run when it does not exist or the one selected run
// cannot be read, Io naming the file when it cannot be written. Exporting all runs, the JSON
// leaves out a run it cannot read (its spec, result or events) and lists it under
// "unreadable_runs" and in the summary; the CSV copies the tables' columns as stored, so it
// reads nothing that could be damaged.
ExportSummary exportSessionJson(const SessionStore& store, RunSelection runs,
                                const std::string& out_path);
ExportSummary exportSessionCsv(const SessionStore& store, RunSelection runs,
                               const std::string& out_path);

class SqliteDatabase;

// One event table's rows as CSV (of one run or all), its columns as they are: what the CSV export
// writes for every kind, usable for a kind of one's own. Returns the rows written.
std::size_t writeEventTableCsv(SqliteDatabase& db, const std::string& table, RunSelection runs,
                               const std::string& path);

// A CSV field (RFC 4180): quoted when it holds a comma, a quote, a line break or edge spaces.
std::string csvField(std::string_view text);

// Where the CSV export puts `table` next to `out_path` ("out/x.csv" -> "out/x.tokens.csv").
std::string csvSiblingPath(const std::string& out_path, const std::string& table);

}  // namespace studio::sessions

#pragma once
// Which table stores which event kind, and the small JSON arrays some columns hold.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace studio::sessions {

struct EventTable {
  const char* kind;   // engine::eventKindName: "step_metric", "probe", ...
  const char* table;  // "step_metrics", "probes", ...
};

// One entry per alternative of engine::Event, in the variant's order (each kind's kKind and
// kTable). Probe events also have per-query rows in `probe_stats`.
const std::vector<EventTable>& eventTables();

// The variant index of a kind name; throws studio::Error (Argument) naming the known kinds.
std::size_t eventKindIndex(const std::string& kind);

// Compact JSON arrays ("[0.5,1,2]") with shortest round-trip numbers. JSON has no NaN or
// infinity: NaN is written as null and ±inf as ±1e999, which JSON readers (SQLite's json
// functions, Python's json, pandas) read back as infinity.
std::string doubleArrayJson(const std::vector<double>& values);
std::string intArrayJson(const std::vector<std::int64_t>& values);
// Reads what the writers above wrote; throws studio::Error (Session) naming `field`.
std::vector<double> parseDoubleArray(std::string_view json, const char* field);
std::vector<std::int64_t> parseIntArray(std::string_view json, const char* field);

// Shortest text that reads back as the same double ("inf", "-inf", "nan" for those).
std::string formatDouble(double value);

}  // namespace studio::sessions

#pragma once
// Reads the records of a benchmark file, JSON Lines (one object per line) or one JSON array of
// objects, as the benchmarks ship them. A record that does not parse becomes a LoadIssue with its
// line number and is skipped; the rest still load.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/task/task.h"

namespace studio::task {

struct JsonRecord {
  std::int64_t line = 0;  // 1-based line where the record starts
  nlohmann::json value;
};

// Calls `visit` for every record in file order until it returns false. Throws studio::Error (Io)
// naming the file when it cannot be read. JSON Lines files may have blank lines; a file whose
// first non-blank character is '[' is read as an array, each element reported at the line where
// it starts (a syntax error that breaks the array is one issue at its line).
void readJsonRecords(const std::string& path, std::vector<LoadIssue>& issues,
                     const std::function<bool(JsonRecord&&)>& visit);

// The common loader loop: one item per record from `make`, which throws studio::Error naming the
// field for a record it cannot use (the record becomes an issue at its line). Stops after `limit`
// items when `limit` > 0.
LoadResult loadRecords(const std::string& path, std::size_t limit,
                       const std::function<TaskItem(const JsonRecord&)>& make);

// Field helpers for loaders: each throws studio::Error (Format) naming the field when it is
// missing or of the wrong type, which the loader turns into a LoadIssue for the record.
std::string requireString(const nlohmann::json& record, const std::string& field);
std::vector<std::string> requireStringList(const nlohmann::json& record, const std::string& field);
// Strings and numbers (LongBench's lengths and ids come as either) become text.
std::string requireScalarText(const nlohmann::json& record, const std::string& field);
std::int64_t requireInteger(const nlohmann::json& record, const std::string& field);

}  // namespace studio::task

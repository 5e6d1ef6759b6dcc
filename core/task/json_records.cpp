#include "core/task/json_records.h"

#include <cctype>
#include <cmath>
#include <optional>

#include "core/common/bounded_json.h"
#include "core/common/error.h"
#include "core/common/json_exact.h"

namespace studio::task {

namespace {

// Benchmark files are read whole; LongBench v2's single JSON array is about half a GB.
constexpr std::size_t kMaxRecordsFileBytes = std::size_t{4} << 30;

// One record's JSON, bounded in depth as every JSON input is (common/bounded_json.h); a bad
// record is an issue of its line, not an error of the file.
std::optional<nlohmann::json> parseRecord(std::string text, std::int64_t line,
                                          std::vector<LoadIssue>& issues) {
  try {
    return parseBoundedJson(text, "");
  } catch (const Error& error) {
    issues.push_back({line, error.detail()});
    return std::nullopt;
  }
}

std::int64_t lineAt(const std::string& text, std::size_t offset, std::size_t from,
                    std::int64_t from_line) {
  std::int64_t line = from_line;
  for (std::size_t i = from; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
  }
  return line;
}

void readLines(const std::string& text, std::vector<LoadIssue>& issues,
               const std::function<bool(JsonRecord&&)>& visit) {
  std::int64_t line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line_number;
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    std::optional<nlohmann::json> value = parseRecord(std::string(line), line_number, issues);
    if (!value) continue;
    JsonRecord record;
    record.line = line_number;
    record.value = std::move(*value);
    if (!visit(std::move(record))) return;
  }
}

// Splits a JSON array into its top-level elements without parsing them, so each element can be
// parsed (and fail) on its own and be reported at its own line.
void readArray(const std::string& text, std::size_t open, std::vector<LoadIssue>& issues,
               const std::function<bool(JsonRecord&&)>& visit) {
  std::int64_t line = lineAt(text, open, 0, 1);
  std::size_t counted_to = open;
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  std::size_t element_start = std::string::npos;
  const auto emit = [&](std::size_t end) -> bool {
    std::size_t first = element_start;
    while (first < end && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
    line = lineAt(text, first, counted_to, line);
    counted_to = first;
    element_start = std::string::npos;
    if (first >= end) {
      issues.push_back({line, "empty array element"});
      return true;
    }
    std::optional<nlohmann::json> value = parseRecord(text.substr(first, end - first), line, issues);
    if (!value) return true;
    JsonRecord record;
    record.line = line;
    record.value = std::move(*value);
    return visit(std::move(record));
  };
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (element_start == std::string::npos && !std::isspace(static_cast<unsigned char>(c)) &&
        c != ']' && c != ',') {
      element_start = i;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || (c == ']' && depth > 0)) {
      --depth;
      if (depth < 0) depth = 0;
    } else if (depth == 0 && (c == ',' || c == ']')) {
      if (element_start != std::string::npos) {
        if (!emit(i)) return;
      } else if (c == ',') {
        issues.push_back({lineAt(text, i, counted_to, line), "empty array element"});
      }
      if (c == ']') {
        const std::size_t rest = text.find_first_not_of(" \t\r\n", i + 1);
        if (rest != std::string::npos) {
          issues.push_back({lineAt(text, rest, counted_to, line),
                            "text after the closing ']' of the array is ignored"});
        }
        return;
      }
    }
  }
  if (element_start != std::string::npos && !emit(text.size())) return;
  issues.push_back({lineAt(text, text.size(), counted_to, line),
                    "the array is not closed with ']' (file truncated?)"});
}

const nlohmann::json& requireField(const nlohmann::json& record, const std::string& field) {
  if (!record.is_object()) {
    throwError(ErrorKind::Format, "", "",
               "a record must be a JSON object, got " + std::string(record.type_name()));
  }
  const auto it = record.find(field);
  if (it == record.end()) throwError(ErrorKind::Format, "", field, "missing");
  return *it;
}

}  // namespace

void readJsonRecords(const std::string& path, std::vector<LoadIssue>& issues,
                     const std::function<bool(JsonRecord&&)>& visit) {
  std::string text = readBoundedFile(path, path, kMaxRecordsFileBytes);
  // A UTF-8 byte order mark is not JSON. Replacing it by spaces keeps offsets and lines.
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.replace(0, 3, "   ");
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return;
  if (text[first] == '[') {
    readArray(text, first, issues, visit);
  } else {
    readLines(text, issues, visit);
  }
}

LoadResult loadRecords(const std::string& path, std::size_t limit,
                       const std::function<TaskItem(const JsonRecord&)>& make) {
  LoadResult result;
  readJsonRecords(path, result.issues, [&](JsonRecord&& record) {
    try {
      result.items.push_back(make(record));
    } catch (const Error& error) {
      if (error.kind() == ErrorKind::Internal || error.kind() == ErrorKind::Io) throw;
      result.issues.push_back({record.line, error.what()});
    }
    return limit == 0 || result.items.size() < limit;
  });
  return result;
}

std::string requireString(const nlohmann::json& record, const std::string& field) {
  const auto& value = requireField(record, field);
  if (!value.is_string()) {
    throwError(ErrorKind::Format, "", field,
               std::string("must be a string, got ") + value.type_name());
  }
  return value.get<std::string>();
}

std::vector<std::string> requireStringList(const nlohmann::json& record, const std::string& field) {
  const auto& value = requireField(record, field);
  if (!value.is_array()) {
    throwError(ErrorKind::Format, "", field,
               std::string("must be a list of strings, got ") + value.type_name());
  }
  std::vector<std::string> out;
  for (const auto& element : value) {
    if (element.is_string()) {
      out.push_back(element.get<std::string>());
    } else if (element.is_number()) {
      out.push_back(element.dump());
    } else {
      throwError(ErrorKind::Format, "", field,
                 std::string("must be a list of strings, has a ") + element.type_name());
    }
  }
  return out;
}

std::string requireScalarText(const nlohmann::json& record, const std::string& field) {
  const auto& value = requireField(record, field);
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  throwError(ErrorKind::Format, "", field,
             std::string("must be a string or a number, got ") + value.type_name());
}

std::int64_t requireInteger(const nlohmann::json& record, const std::string& field) {
  const auto& value = requireField(record, field);
  if (holdsExactly<std::int64_t>(value)) return value.get<std::int64_t>();
  // A whole number written as a float (12.0) is taken; only one within [-2^63, 2^63) is cast, as
  // the cast of 1e300 would be undefined behaviour.
  constexpr double kTwoToThe63 = 9223372036854775808.0;
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (std::floor(number) == number && number >= -kTwoToThe63 && number < kTwoToThe63) {
      return static_cast<std::int64_t>(number);
    }
  }
  throwError(ErrorKind::Format, "", field, std::string("must be an integer, got ") + value.dump());
}

}  // namespace studio::task

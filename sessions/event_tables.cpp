#include "sessions/event_tables.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <variant>

#include "core/common/error.h"
#include "core/engine/events.h"

namespace studio::sessions {

const std::vector<EventTable>& eventTables() {
  static const std::vector<EventTable> tables = [] {
    std::vector<EventTable> list;
    engine::forEachEventKind([&](const auto& kind) {
      using E = std::decay_t<decltype(kind)>;
      list.push_back({E::kKind, E::kTable});
    });
    return list;
  }();
  return tables;
}

std::size_t eventKindIndex(const std::string& kind) {
  const auto& tables = eventTables();
  std::string known;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (kind == tables[i].kind) return i;
    known += (i ? ", " : "") + std::string(tables[i].kind);
  }
  throwArgument("kind", "unknown event kind '" + kind + "' (known: " + known + ")");
}

std::string formatDouble(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string doubleArrayJson(const std::vector<double>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    const double value = values[i];
    if (std::isnan(value)) {
      out += "null";
    } else if (std::isinf(value)) {
      out += value > 0 ? "1e999" : "-1e999";
    } else {
      out += formatDouble(value);
    }
  }
  out += ']';
  return out;
}

std::string intArrayJson(const std::vector<std::int64_t>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(values[i]);
  }
  out += ']';
  return out;
}

namespace {

// Splits a flat JSON array of numbers (or null) into its items; throws naming `field`.
std::vector<std::string_view> arrayItems(std::string_view json, const char* field) {
  auto trim = [](std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
      text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
      text.remove_suffix(1);
    }
    return text;
  };
  json = trim(json);
  if (json.size() < 2 || json.front() != '[' || json.back() != ']') {
    throwError(ErrorKind::Session, "", field,
               "expected a JSON array of numbers, got '" + std::string(json.substr(0, 40)) + "'");
  }
  std::vector<std::string_view> items;
  std::string_view body = trim(json.substr(1, json.size() - 2));
  while (!body.empty()) {
    const std::size_t comma = body.find(',');
    items.push_back(trim(body.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }
  return items;
}

[[noreturn]] void badItem(const char* field, std::string_view item) {
  throwError(ErrorKind::Session, "", field, "not a number: '" + std::string(item) + "'");
}

}  // namespace

std::vector<double> parseDoubleArray(std::string_view json, const char* field) {
  std::vector<double> values;
  for (std::string_view item : arrayItems(json, field)) {
    if (item == "null") {
      values.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    // strtod (not from_chars) so that ±1e999 overflows to ±inf as intended.
    const std::string text(item);
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) badItem(field, item);
    values.push_back(value);
  }
  return values;
}

std::vector<std::int64_t> parseIntArray(std::string_view json, const char* field) {
  std::vector<std::int64_t> values;
  for (std::string_view item : arrayItems(json, field)) {
    std::int64_t value = 0;
    const auto result = std::from_chars(item.data(), item.data() + item.size(), value);
    if (result.ec != std::errc() || result.ptr != item.data() + item.size()) badItem(field, item);
    values.push_back(value);
  }
  return values;
}

}  // namespace studio::sessions

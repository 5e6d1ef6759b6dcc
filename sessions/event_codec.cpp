#include "sessions/event_codec.h"

#include <algorithm>

#include "core/common/error.h"
#include "sessions/event_tables.h"

namespace studio::sessions {

SqliteStatement& StatementCache::get(const std::string& sql) {
  auto& slot = m_statements[sql];
  if (!slot) slot = std::make_unique<SqliteStatement>(m_db, sql);
  return *slot;
}

namespace codec {

void bindValue(SqliteStatement& s, int index, bool value) { s.bind(index, value); }
void bindValue(SqliteStatement& s, int index, int value) { s.bind(index, value); }
void bindValue(SqliteStatement& s, int index, std::int64_t value) { s.bind(index, value); }
void bindValue(SqliteStatement& s, int index, double value) { s.bind(index, value); }
void bindValue(SqliteStatement& s, int index, const std::string& value) { s.bind(index, value); }
void bindValue(SqliteStatement& s, int index, const std::vector<double>& value) {
  s.bind(index, doubleArrayJson(value));
}
void bindValue(SqliteStatement& s, int index, const std::vector<std::int64_t>& value) {
  s.bind(index, intArrayJson(value));
}
void bindValue(SqliteStatement& s, int index, const std::vector<float>& value) {
  s.bindBlob(index, value.data(), value.size() * sizeof(float));
}

void readValue(const SqliteStatement& s, int column, const std::string&, bool& out) {
  out = s.columnInt(column) != 0;
}
void readValue(const SqliteStatement& s, int column, const std::string&, int& out) {
  out = static_cast<int>(s.columnInt(column));
}
void readValue(const SqliteStatement& s, int column, const std::string&, std::int64_t& out) {
  out = s.columnInt(column);
}
void readValue(const SqliteStatement& s, int column, const std::string&, double& out) {
  out = s.columnDouble(column);
}
void readValue(const SqliteStatement& s, int column, const std::string&, std::string& out) {
  out = s.columnText(column);
}
void readValue(const SqliteStatement& s, int column, const std::string& where,
               std::vector<double>& out) {
  out = parseDoubleArray(s.columnText(column), where.c_str());
}
void readValue(const SqliteStatement& s, int column, const std::string& where,
               std::vector<std::int64_t>& out) {
  out = parseIntArray(s.columnText(column), where.c_str());
}
void readValue(const SqliteStatement& s, int column, const std::string& where,
               std::vector<float>& out) {
  const std::string_view blob = s.columnBlob(column);
  if (blob.size() % sizeof(float) != 0) {
    throwError(ErrorKind::Session, "", where,
               "blob of " + std::to_string(blob.size()) + " bytes is not float32 values");
  }
  out.resize(blob.size() / sizeof(float));
  std::copy(blob.begin(), blob.end(), reinterpret_cast<char*>(out.data()));
}

void unknownName(const std::string& where, const std::string& name) {
  throwError(ErrorKind::Session, "", where, "unknown value '" + name + "'");
}

nlohmann::json jsonDocument(const std::string& text) {
  if (text.empty()) return nlohmann::json::object();
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? nlohmann::json(text) : parsed;
}

}  // namespace codec

}  // namespace studio::sessions

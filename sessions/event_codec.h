#pragma once
// Storing, loading and exporting an event kind, written once over its description
// (core/engine/event_fields.h): its table's CREATE statement, the INSERT that stores an event, the
// SELECT that reads a run's events back, and its JSON object. Every kind of engine::Event goes
// through here (event_inserter, event_loader, event_json); a kind defined elsewhere (a test's,
// a plugin's) works the same once its table exists (createTableSql in a schema migration).
// ProbeEvent's nested result has its own codec (event_codec_probe.cpp).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/engine/events.h"
#include "sessions/sqlite_database.h"

namespace studio::sessions {

// Prepared statements of one connection, by their SQL text.
class StatementCache {
 public:
  explicit StatementCache(SqliteDatabase& db) : m_db(db) {}
  SqliteStatement& get(const std::string& sql);
  SqliteDatabase& db() { return m_db; }

 private:
  SqliteDatabase& m_db;
  std::unordered_map<std::string, std::unique_ptr<SqliteStatement>> m_statements;
};

namespace codec {

// The SQLite type a member is stored as.
template <typename T>
const char* sqlType() {
  if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T>) return "INTEGER";
  if constexpr (std::is_floating_point_v<T>) return "REAL";
  if constexpr (std::is_same_v<T, std::vector<float>>) return "BLOB";
  return "TEXT";  // strings, enums by name, JSON arrays
}

void bindValue(SqliteStatement& s, int index, bool value);
void bindValue(SqliteStatement& s, int index, int value);
void bindValue(SqliteStatement& s, int index, std::int64_t value);
void bindValue(SqliteStatement& s, int index, double value);
void bindValue(SqliteStatement& s, int index, const std::string& value);
void bindValue(SqliteStatement& s, int index, const std::vector<double>& value);
void bindValue(SqliteStatement& s, int index, const std::vector<std::int64_t>& value);
void bindValue(SqliteStatement& s, int index, const std::vector<float>& value);
template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
void bindValue(SqliteStatement& s, int index, E value) {
  s.bind(index, engine::enumName(value));
}

// `where` ("tokens.phase") names the column in errors: throws studio::Error (Session) for what
// cannot be read back (an unknown enum name, a malformed array or blob).
void readValue(const SqliteStatement& s, int column, const std::string& where, bool& out);
void readValue(const SqliteStatement& s, int column, const std::string& where, int& out);
void readValue(const SqliteStatement& s, int column, const std::string& where, std::int64_t& out);
void readValue(const SqliteStatement& s, int column, const std::string& where, double& out);
void readValue(const SqliteStatement& s, int column, const std::string& where, std::string& out);
void readValue(const SqliteStatement& s, int column, const std::string& where,
               std::vector<double>& out);
void readValue(const SqliteStatement& s, int column, const std::string& where,
               std::vector<std::int64_t>& out);
void readValue(const SqliteStatement& s, int column, const std::string& where,
               std::vector<float>& out);
[[noreturn]] void unknownName(const std::string& where, const std::string& name);
template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
void readValue(const SqliteStatement& s, int column, const std::string& where, E& out) {
  const std::string name = s.columnText(column);
  const auto value = engine::enumFromName<E>(name);
  if (!value) unknownName(where, name);
  out = *value;
}

template <typename T>
nlohmann::json jsonValue(const T& value) {
  if constexpr (std::is_enum_v<T>) {
    return engine::enumName(value);
  } else {
    return value;  // NaN and infinities are written as null by nlohmann
  }
}
// A JSON document kept as text: parsed, or the text itself when it is not JSON.
nlohmann::json jsonDocument(const std::string& text);

}  // namespace codec

template <typename E>
struct EventCodec {
  static std::string createTableSql() {
    std::string sql = std::string("CREATE TABLE ") + E::kTable +
                      " (\n  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
                      "  seq INTEGER NOT NULL,\n";
    std::apply(
        [&](const auto&... f) {
          ((sql += std::string("  \"") + f.column + "\" " +
                   codec::sqlType<typename std::decay_t<decltype(f)>::Type>() + ",\n"),
           ...);
        },
        E::fields());
    return sql + "  PRIMARY KEY (run_id, seq)\n) WITHOUT ROWID;\n";
  }

  static void insert(StatementCache& statements, std::int64_t run_id, std::int64_t seq,
                     const E& event) {
    SqliteStatement& s = statements.get(insertSql());
    s.bind(0, run_id).bind(1, seq);
    int index = 2;
    engine::forEachField(event, [&](const auto&, const auto& value) {
      codec::bindValue(s, index++, value);
    });
    s.run();
  }

  // The run's events of this kind with their seq, in seq order.
  static std::vector<std::pair<std::int64_t, E>> load(SqliteDatabase& db, std::int64_t run_id) {
    SqliteStatement s(db, selectSql());
    s.bind(0, run_id);
    std::vector<std::pair<std::int64_t, E>> out;
    while (s.step()) {
      E event;
      int column = 1;
      engine::forEachField(event, [&](const auto& f, auto& value) {
        codec::readValue(s, column++, std::string(E::kTable) + "." + f.column, value);
      });
      out.emplace_back(s.columnInt(0), std::move(event));
    }
    return out;
  }

  static nlohmann::json toJson(const E& event) {
    nlohmann::json out = nlohmann::json::object();
    engine::forEachField(event, [&](const auto& f, const auto& value) {
      if constexpr (std::decay_t<decltype(f)>::format == engine::FieldFormat::JsonText) {
        out[f.name] = codec::jsonDocument(value);
      } else {
        out[f.name] = codec::jsonValue(value);
      }
    });
    return out;
  }

 private:
  static std::string columns() {
    std::string list;
    // Quoted: a column may be called what SQL reserves ("values").
    std::apply([&](const auto&... f) { ((list += std::string(", \"") + f.column + "\""), ...); },
               E::fields());
    return list;
  }
  static std::string insertSql() {
    std::string marks = "?, ?";
    std::apply([&](const auto&... f) { ((static_cast<void>(f), marks += ", ?"), ...); },
               E::fields());
    return std::string("INSERT INTO ") + E::kTable + " (run_id, seq" + columns() + ") VALUES (" +
           marks + ")";
  }
  static std::string selectSql() {
    return std::string("SELECT seq") + columns() + " FROM " + E::kTable +
           " WHERE run_id = ?1 ORDER BY seq";
  }
};

// The probe's result is stored as one `probes` row and a `probe_stats` row per head and query.
template <>
struct EventCodec<engine::ProbeEvent> {
  static void insert(StatementCache& statements, std::int64_t run_id, std::int64_t seq,
                     const engine::ProbeEvent& event);
  static std::vector<std::pair<std::int64_t, engine::ProbeEvent>> load(SqliteDatabase& db,
                                                                       std::int64_t run_id);
  static nlohmann::json toJson(const engine::ProbeEvent& event);
};

// An event of any described kind as a JSON object: its fields and "kind".
template <typename E>
nlohmann::json eventJson(const E& event) {
  nlohmann::json out = EventCodec<E>::toJson(event);
  out["kind"] = E::kKind;
  return out;
}

}  // namespace studio::sessions

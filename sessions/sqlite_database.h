#pragma once
// RAII ownership of one sqlite3 connection and its prepared statements, with every SQLite failure
// turned into a studio::Error (Session) that names the file.

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace studio::sessions {

class SqliteDatabase {
 public:
  enum class Mode { ReadWrite, ReadOnly };

  // Opens (and for ReadWrite creates) the file; throws studio::Error (Session) naming the path.
  SqliteDatabase(const std::string& path, Mode mode);
  ~SqliteDatabase();
  // A private in-memory database holding a copy of `source` (SQLite's backup API); its path()
  // still names the source file, for messages.
  static std::unique_ptr<SqliteDatabase> memoryCopyOf(SqliteDatabase& source);
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  sqlite3* handle() const { return m_db; }
  const std::string& path() const { return m_path; }
  Mode mode() const { return m_mode; }

  // Runs SQL that returns no rows (several statements allowed); throws on failure.
  void exec(const std::string& sql);
  // The first column of the first row of `sql` (NULL or no row: std::nullopt).
  std::optional<std::int64_t> queryInt(const std::string& sql);
  std::optional<std::string> queryText(const std::string& sql);

  std::int64_t lastInsertRowid() const { return sqlite3_last_insert_rowid(m_db); }
  int changes() const { return sqlite3_changes(m_db); }

  // Throws the Error for a failed call that returned `rc`; `context` says what was attempted.
  [[noreturn]] void fail(int rc, const std::string& context) const;

 private:
  sqlite3* m_db = nullptr;
  std::string m_path;
  Mode m_mode;
};

// One prepared statement. Parameters and columns are 0-based here (SQLite binds 1-based).
class SqliteStatement {
 public:
  SqliteStatement(SqliteDatabase& db, std::string_view sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind(int index, int value) { return bind(index, std::int64_t{value}); }
  SqliteStatement& bind(int index, bool value) { return bind(index, std::int64_t{value}); }
  // NaN is stored as NULL (SQLite has no NaN); column() reads NULL back as NaN.
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, std::string_view text);
  SqliteStatement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  SqliteStatement& bind(int index, const std::string& text) {
    return bind(index, std::string_view(text));
  }
  SqliteStatement& bindBlob(int index, const void* data, std::size_t bytes);
  SqliteStatement& bindNull(int index);
  // Binds column `column` of `row`'s current row as it is stored (its type, NULL included);
  // `row` may belong to another connection (copying rows between sessions).
  SqliteStatement& bindColumnOf(int index, const SqliteStatement& row, int column);
  template <typename T>
  SqliteStatement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bindNull(index);
  }

  // Advances; true while there is a row to read. Throws on errors.
  bool step();
  // Steps a statement that returns no rows, then resets it for reuse.
  void run();
  // Makes the statement ready to run again (bindings are kept until rebound).
  void reset();

  bool isNull(int column) const;
  std::int64_t columnInt(int column) const;
  double columnDouble(int column) const;  // NULL reads as NaN
  std::optional<double> columnOptionalDouble(int column) const;
  std::optional<std::int64_t> columnOptionalInt(int column) const;
  std::string columnText(int column) const;  // NULL reads as ""
  std::string_view columnBlob(int column) const;
  int columnCount() const { return sqlite3_column_count(m_stmt); }
  std::string columnName(int column) const { return sqlite3_column_name(m_stmt, column); }
  int columnType(int column) const { return sqlite3_column_type(m_stmt, column); }

 private:
  SqliteDatabase& m_db;
  sqlite3_stmt* m_stmt = nullptr;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit() was called, so an
// exception between the two leaves the file as it was.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDatabase& db);
  ~SqliteTransaction();
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;
  void commit();

 private:
  SqliteDatabase& m_db;
  bool m_open = true;
};

// A read snapshot: several SELECTs see the same commit even while another connection writes
// (WAL). Joins the caller's transaction when one is already open.
class SqliteReadTransaction {
 public:
  explicit SqliteReadTransaction(SqliteDatabase& db);
  ~SqliteReadTransaction();
  SqliteReadTransaction(const SqliteReadTransaction&) = delete;
  SqliteReadTransaction& operator=(const SqliteReadTransaction&) = delete;

 private:
  SqliteDatabase& m_db;
  bool m_owned = false;
};

}  // namespace studio::sessions

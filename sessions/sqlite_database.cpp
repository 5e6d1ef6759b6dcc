#include "sessions/sqlite_database.h"

#include <cmath>
#include <limits>

#include "core/common/error.h"

namespace studio::sessions {

SqliteDatabase::SqliteDatabase(const std::string& path, Mode mode) : m_path(path), m_mode(mode) {
  const int flags =
      mode == Mode::ReadWrite ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY;
  const int rc = sqlite3_open_v2(path.c_str(), &m_db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    sqlite3_close(m_db);
    m_db = nullptr;
    throwError(ErrorKind::Session, path, "", "cannot open: " + message);
  }
  sqlite3_extended_result_codes(m_db, 1);
  sqlite3_busy_timeout(m_db, 5000);
}

SqliteDatabase::~SqliteDatabase() {
  sqlite3_close_v2(m_db);
}

std::unique_ptr<SqliteDatabase> SqliteDatabase::memoryCopyOf(SqliteDatabase& source) {
  auto copy = std::make_unique<SqliteDatabase>(":memory:", Mode::ReadWrite);
  copy->m_path = source.m_path;
  sqlite3_backup* backup = sqlite3_backup_init(copy->m_db, "main", source.m_db, "main");
  if (!backup) copy->fail(sqlite3_errcode(copy->m_db), "copying the session into memory");
  const int rc = sqlite3_backup_step(backup, -1);
  // On failure the error is reported on the destination connection.
  const int finish_rc = sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) copy->fail(finish_rc, "copying the session into memory");
  return copy;
}

void SqliteDatabase::fail(int rc, const std::string& context) const {
  std::string message = sqlite3_errmsg(m_db);
  const int primary = rc & 0xff;
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
    message += " (the file is damaged or is not a TTT Studio session)";
  }
  throwError(ErrorKind::Session, m_path, "", message + " (in: " + context.substr(0, 120) + ")");
}

void SqliteDatabase::exec(const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    sqlite3_free(message);
    fail(rc, sql);
  }
}

std::optional<std::int64_t> SqliteDatabase::queryInt(const std::string& sql) {
  SqliteStatement statement(*this, sql);
  if (!statement.step() || statement.isNull(0)) return std::nullopt;
  return statement.columnInt(0);
}

std::optional<std::string> SqliteDatabase::queryText(const std::string& sql) {
  SqliteStatement statement(*this, sql);
  if (!statement.step() || statement.isNull(0)) return std::nullopt;
  return statement.columnText(0);
}

SqliteStatement::SqliteStatement(SqliteDatabase& db, std::string_view sql) : m_db(db) {
  const int rc = sqlite3_prepare_v3(db.handle(), sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr);
  if (rc != SQLITE_OK) db.fail(rc, std::string(sql));
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(m_stmt);
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(m_stmt, index + 1, value);
  if (rc != SQLITE_OK) m_db.fail(rc, sqlite3_sql(m_stmt));
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  const int rc = std::isnan(value) ? sqlite3_bind_null(m_stmt, index + 1)
                                   : sqlite3_bind_double(m_stmt, index + 1, value);
  if (rc != SQLITE_OK) m_db.fail(rc, sqlite3_sql(m_stmt));
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  const int rc = sqlite3_bind_text64(m_stmt, index + 1, text.data(), text.size(), SQLITE_TRANSIENT,
                                     SQLITE_UTF8);
  if (rc != SQLITE_OK) m_db.fail(rc, sqlite3_sql(m_stmt));
  return *this;
}

SqliteStatement& SqliteStatement::bindBlob(int index, const void* data, std::size_t bytes) {
  // A zero-length blob is still a blob, not NULL: sqlite3_bind_zeroblob keeps that distinction.
  const int rc = bytes == 0 ? sqlite3_bind_zeroblob(m_stmt, index + 1, 0)
                            : sqlite3_bind_blob64(m_stmt, index + 1, data, bytes, SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) m_db.fail(rc, sqlite3_sql(m_stmt));
  return *this;
}

SqliteStatement& SqliteStatement::bindNull(int index) {
  const int rc = sqlite3_bind_null(m_stmt, index + 1);
  if (rc != SQLITE_OK) m_db.fail(rc, sqlite3_sql(m_stmt));
  return *this;
}

SqliteStatement& SqliteStatement::bindColumnOf(int index, const SqliteStatement& row, int column) {
  const int rc = sqlite3_bind_value(m_stmt, index + 1, sqlite3_column_value(row.m_stmt, column));
  if (rc != SQLITE_OK) m_db.fail(rc, sqlite3_sql(m_stmt));
  return *this;
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // The statement must be reset before the connection is used again, but the error message
  // has to be read first.
  std::string sql = sqlite3_sql(m_stmt);
  try {
    m_db.fail(rc, sql);
  } catch (...) {
    sqlite3_reset(m_stmt);
    throw;
  }
}

void SqliteStatement::run() {
  step();
  reset();
}

void SqliteStatement::reset() {
  sqlite3_reset(m_stmt);
}

bool SqliteStatement::isNull(int column) const {
  return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

std::int64_t SqliteStatement::columnInt(int column) const {
  return sqlite3_column_int64(m_stmt, column);
}

double SqliteStatement::columnDouble(int column) const {
  if (isNull(column)) return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(m_stmt, column);
}

std::optional<double> SqliteStatement::columnOptionalDouble(int column) const {
  if (isNull(column)) return std::nullopt;
  return sqlite3_column_double(m_stmt, column);
}

std::optional<std::int64_t> SqliteStatement::columnOptionalInt(int column) const {
  if (isNull(column)) return std::nullopt;
  return sqlite3_column_int64(m_stmt, column);
}

std::string SqliteStatement::columnText(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
  if (!text) return {};
  return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)));
}

std::string_view SqliteStatement::columnBlob(int column) const {
  const void* data = sqlite3_column_blob(m_stmt, column);
  if (!data) return {};
  return {static_cast<const char*>(data),
          static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))};
}

SqliteTransaction::SqliteTransaction(SqliteDatabase& db) : m_db(db) {
  m_db.exec("BEGIN IMMEDIATE");
}

SqliteTransaction::~SqliteTransaction() {
  if (m_open) sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
  m_db.exec("COMMIT");
  m_open = false;
}

SqliteReadTransaction::SqliteReadTransaction(SqliteDatabase& db) : m_db(db) {
  if (sqlite3_get_autocommit(db.handle()) == 0) return;
  db.exec("BEGIN");
  m_owned = true;
}

SqliteReadTransaction::~SqliteReadTransaction() {
  // Ending a transaction that only read cannot lose anything; COMMIT releases the snapshot.
  if (m_owned) sqlite3_exec(m_db.handle(), "COMMIT", nullptr, nullptr, nullptr);
}

}  // namespace studio::sessions

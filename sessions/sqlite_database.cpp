#include "sessions/sqlite_database.h"

#include "core/common/error.h"

namespace studio::sessions {

SqliteDatabase::SqliteDatabase(const std::string& path, Mode mode) : m_path(path) {
  const int flags = mode == Mode::ReadWrite ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
                                            : SQLITE_OPEN_READONLY;
  const int rc = sqlite3_open_v2(path.c_str(), &m_db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    sqlite3_close(m_db);
    m_db = nullptr;
    throwError(ErrorKind::Session, path, "", "cannot open: " + message);
  }
  sqlite3_busy_timeout(m_db, 2000);
}

SqliteDatabase::~SqliteDatabase() { sqlite3_close(m_db); }

void SqliteDatabase::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(m_db);
    sqlite3_free(message);
    throwError(ErrorKind::Session, m_path, "", text + " (in: " + sql.substr(0, 80) + ")");
  }
}

}  // namespace studio::sessions

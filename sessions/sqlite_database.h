#pragma once
// RAII ownership of one sqlite3 connection, with errors turned into studio::Error values.

#include <sqlite3.h>

#include <string>

namespace studio::sessions {

class SqliteDatabase {
 public:
  enum class Mode { ReadWrite, ReadOnly };

  // Opens (and for ReadWrite creates) the file; throws studio::Error (Session) naming the path.
  SqliteDatabase(const std::string& path, Mode mode);
  ~SqliteDatabase();
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  sqlite3* handle() const { return m_db; }
  const std::string& path() const { return m_path; }

  // Runs SQL that returns no rows; throws with the statement's error message on failure.
  void exec(const std::string& sql);

 private:
  sqlite3* m_db = nullptr;
  std::string m_path;
};

}  // namespace studio::sessions

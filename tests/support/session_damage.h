#pragma once
// Damaging a session the way a hand edit or another tool could, for the tests of what the studio
// does with it: SQL run on the file directly (header-only: for tests linked with SQLite).

#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace studio::test {

// Runs `sql` on the session file and returns the number of rows the last statement changed.
inline int damageSession(const std::string& session, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(session.c_str(), &db) == SQLITE_OK);
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  const int changed = sqlite3_changes(db);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
  return changed;
}

// Makes run `id` unreadable while SQLite still reads the file: its spec's method becomes a number.
inline void makeRunUnreadable(const std::string& session, std::int64_t id) {
  REQUIRE(
      damageSession(session,
                    "UPDATE runs SET spec_json = json_set(spec_json, '$.method', 5) WHERE id = " +
                        std::to_string(id)) == 1);
}

}  // namespace studio::test

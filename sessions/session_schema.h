#pragma once
// The session schema and its history. PRAGMA user_version holds the version of a file; each step
// from version v−1 to v is one function applied in one transaction, so a file is always at some
// whole version. Steps are never edited once released: a change is a new step (and a new fixture
// of the version before it in tests/fixtures/sessions/). docs/sessions.md describes the tables.

#include <string>
#include <vector>

namespace studio::sessions {

class SqliteDatabase;

// v1: documents, models, runs and the event tables; v2: artifacts (heatmap windows as float32
// blobs); v3: runs.prompt_tokens / generated_tokens and the indexes the views query; v4: the
// routing table's window, p, inserted, α, evictions, open flag and document bytes.
inline constexpr int kSchemaVersion = 6;

// PRAGMA application_id of every session ("TTTS"), so that another program's SQLite file is
// never mistaken for an old session and "migrated".
inline constexpr int kApplicationId = 0x54545453;

struct MigrationStep {
  int to_version;
  const char* summary;
  void (*apply)(SqliteDatabase& db);
};

// Every step, in order: steps()[i].to_version == i + 1.
const std::vector<MigrationStep>& migrationSteps();

// Brings `db` from its user_version up to `target_version` (default: kSchemaVersion), one
// transaction per step. Throws studio::Error (Session) naming the file and the failed step; the
// file is then left at the last version that committed.
void migrateSchema(SqliteDatabase& db, int target_version = kSchemaVersion);

}  // namespace studio::sessions

#include "sessions/session_schema.h"

#include "core/common/error.h"
#include "sessions/sqlite_database.h"

namespace studio::sessions {

namespace {

// Event tables are WITHOUT ROWID and keyed by (run_id, seq): a run's events are stored together
// in seq order, which is how they are written (appends) and read (one run at a time), and the
// key is the (run_id, seq) index. Timestamps are ISO 8601 UTC text, which sqlite3 and pandas
// both parse.
void createV1(SqliteDatabase& db) {
  db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  db.exec(R"sql(
CREATE TABLE documents (
  id INTEGER PRIMARY KEY,
  content_hash TEXT NOT NULL UNIQUE,
  source TEXT NOT NULL,
  byte_length INTEGER NOT NULL,
  text TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE models (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  config_json TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (path, config_hash)
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  document_id INTEGER REFERENCES documents(id),
  model_id INTEGER REFERENCES models(id),
  method TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN
    ('queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted')),
  started_at TEXT,
  ended_at TEXT,
  wall_seconds REAL,
  flops_prefill REAL,
  flops_extra REAL,
  answer TEXT,
  output TEXT,
  score REAL,
  correct INTEGER,
  target_mass REAL,
  target_margin REAL,
  error TEXT,
  result_json TEXT
);
CREATE INDEX runs_status ON runs(status);
CREATE TABLE progress (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  stage TEXT NOT NULL,
  fraction REAL,
  done INTEGER,
  total INTEGER,
  eta_seconds REAL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE step_metrics (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  phase TEXT NOT NULL,
  step INTEGER NOT NULL,
  loss REAL,
  grad_norm REAL,
  learning_rate REAL,
  span_start INTEGER,
  span_length INTEGER,
  wall_seconds REAL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE probes (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  phase TEXT NOT NULL,
  step INTEGER NOT NULL,
  deltas_json TEXT NOT NULL,
  epsilon REAL,
  context_length INTEGER,
  required_margin REAL,
  num_layers INTEGER,
  num_heads INTEGER,
  mean_mass REAL,
  mean_margin REAL,
  mean_mass_per_layer_json TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE probe_stats (
  run_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  head_slot INTEGER NOT NULL,
  query_slot INTEGER NOT NULL,
  layer INTEGER NOT NULL,
  head INTEGER NOT NULL,
  pos INTEGER NOT NULL,
  lse REAL,
  mass REAL,
  margin REAL,
  margin_best REAL,
  max_target_logit REAL,
  near_ties_json TEXT NOT NULL,
  dilution_bound_json TEXT NOT NULL,
  PRIMARY KEY (run_id, seq, head_slot, query_slot),
  FOREIGN KEY (run_id, seq) REFERENCES probes(run_id, seq) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE TABLE tokens (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  phase TEXT NOT NULL,
  branch INTEGER NOT NULL,
  token_index INTEGER NOT NULL,
  token_id INTEGER NOT NULL,
  text TEXT NOT NULL,
  logprob REAL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE fast_weight_losses (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  layer INTEGER NOT NULL,
  position INTEGER NOT NULL,
  loss_initial REAL,
  loss_before REAL,
  loss_after REAL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE routing (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  layer INTEGER NOT NULL,
  position INTEGER NOT NULL,
  loss REAL,
  threshold REAL,
  routed INTEGER NOT NULL,
  cache_occupancy INTEGER,
  evictions INTEGER,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE rewards (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  step INTEGER NOT NULL,
  position INTEGER NOT NULL,
  reward_phi REAL,
  reward_binary REAL,
  reward REAL,
  advantage REAL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE logs (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  level TEXT NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
)sql");
}

// Heatmap windows and other float arrays, kept whole. A rowid table: blobs are large, and
// WITHOUT ROWID tables are slow with large rows.
void addArtifactsV2(SqliteDatabase& db) {
  db.exec(R"sql(
CREATE TABLE artifacts (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  shape_json TEXT NOT NULL,
  meta_json TEXT NOT NULL,
  data BLOB NOT NULL,
  UNIQUE (run_id, seq)
);
)sql");
}

// The run table lacked the prompt/generated token counts of RunResult (they were only in
// result_json), and the views filter series by phase and step, and runs by document.
void addTokenCountsAndViewIndexesV3(SqliteDatabase& db) {
  db.exec(R"sql(
ALTER TABLE runs ADD COLUMN prompt_tokens INTEGER;
ALTER TABLE runs ADD COLUMN generated_tokens INTEGER;
UPDATE runs SET
  prompt_tokens = json_extract(result_json, '$.prompt_tokens'),
  generated_tokens = json_extract(result_json, '$.generated_tokens')
WHERE result_json IS NOT NULL AND json_valid(result_json);
CREATE INDEX runs_document ON runs(document_id, id);
CREATE INDEX step_metrics_phase_step ON step_metrics(run_id, phase, step);
CREATE INDEX probes_phase_step ON probes(run_id, phase, step);
CREATE INDEX tokens_phase_branch ON tokens(run_id, phase, branch, token_index);
)sql");
}

// Routing events say which window judged a token and by what p, whether it was inserted, α, the
// window's evictions and the token's document bytes (the routing panel). Older rows keep their
// meaning; their new columns read as "unknown" (window −1, no evictions, no document bytes).
void addRoutingWindowsV4(SqliteDatabase& db) {
  db.exec(R"sql(
ALTER TABLE routing ADD COLUMN window_start INTEGER NOT NULL DEFAULT -1;
ALTER TABLE routing ADD COLUMN window_end INTEGER NOT NULL DEFAULT -1;
ALTER TABLE routing ADD COLUMN percentile REAL;
ALTER TABLE routing ADD COLUMN inserted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE routing ADD COLUMN alpha REAL;
ALTER TABLE routing ADD COLUMN evicted_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE routing ADD COLUMN open_window INTEGER NOT NULL DEFAULT 0;
ALTER TABLE routing ADD COLUMN document_start INTEGER NOT NULL DEFAULT -1;
ALTER TABLE routing ADD COLUMN document_end INTEGER NOT NULL DEFAULT -1;
)sql");
}

// The probe's per-query statistics gained Lemma 2.3's pairwise gap, the number of visible target
// keys, the best target key's own weight and the set's Lemma 2.2 bound (issue 26). Older rows read
// them as unknown: NULL gap and weight (NaN), −1 target keys, no set bound.
void addProbeGapsAndSetBoundsV5(SqliteDatabase& db) {
  db.exec(R"sql(
ALTER TABLE probe_stats ADD COLUMN min_gap REAL;
ALTER TABLE probe_stats ADD COLUMN target_keys INTEGER NOT NULL DEFAULT -1;
ALTER TABLE probe_stats ADD COLUMN best_target_weight REAL;
ALTER TABLE probe_stats ADD COLUMN set_bound_json TEXT NOT NULL DEFAULT '[]';
)sql");
}

// Prop. 3.1's direction after each qTTT step (issue 26): per attention layer, the mean over heads
// of cos(Δq, k_j* − μ) for the answer query, and their mean. Runs recorded before keep it only
// in their result's details.
void addQueryDirectionsV6(SqliteDatabase& db) {
  db.exec(R"sql(
CREATE TABLE query_directions (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  step INTEGER NOT NULL,
  layer_cosine_json TEXT NOT NULL,
  mean_cosine REAL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
)sql");
}

}  // namespace

const std::vector<MigrationStep>& migrationSteps() {
  static const std::vector<MigrationStep> steps = {
      {1, "documents, models, runs and the event tables", createV1},
      {2, "artifacts", addArtifactsV2},
      {3, "runs.prompt_tokens/generated_tokens, view indexes", addTokenCountsAndViewIndexesV3},
      {4, "routing: window, p, inserted, alpha, evicted, open, document bytes",
       addRoutingWindowsV4},
      {5, "probe_stats: min_gap, target_keys, best_target_weight, set_bound", addProbeGapsAndSetBoundsV5},
      {6, "query_directions: Prop. 3.1's cosine per qTTT step", addQueryDirectionsV6},
  };
  return steps;
}

void migrateSchema(SqliteDatabase& db, int target_version) {
  if (target_version < 0 || target_version > kSchemaVersion) {
    throwError(ErrorKind::Internal, db.path(), "user_version",
               "cannot migrate to version " + std::to_string(target_version));
  }
  const int current = static_cast<int>(db.queryInt("PRAGMA user_version").value_or(0));
  for (const MigrationStep& step : migrationSteps()) {
    if (step.to_version <= current || step.to_version > target_version) continue;
    try {
      SqliteTransaction transaction(db);
      step.apply(db);
      db.exec("PRAGMA user_version = " + std::to_string(step.to_version));
      transaction.commit();
    } catch (const Error& error) {
      throwError(ErrorKind::Session, db.path(), "user_version",
                 "migration to schema version " + std::to_string(step.to_version) + " (" +
                     step.summary + ") failed, the file stays at version " +
                     std::to_string(step.to_version - 1) + ": " + error.detail());
    }
  }
}

}  // namespace studio::sessions

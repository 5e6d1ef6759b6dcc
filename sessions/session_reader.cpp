#include "sessions/session_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/common/error.h"
#include "sessions/event_tables.h"
#include "sessions/session_store.h"
#include "sessions/sqlite_database.h"

namespace studio::sessions {

namespace {

constexpr const char* kRunColumns =
    "SELECT r.id, r.document_id, r.model_id, r.method, r.status, r.started_at, r.ended_at, "
    "r.answer, r.score, r.correct, r.target_mass, r.target_margin, r.flops_prefill, "
    "r.flops_extra, r.wall_seconds, r.error, d.source, m.path "
    "FROM runs r LEFT JOIN documents d ON d.id = r.document_id "
    "LEFT JOIN models m ON m.id = r.model_id ";

RunSummary summaryOf(const SqliteStatement& s, bool writer_alive) {
  RunSummary run;
  run.id = s.columnInt(0);
  run.document_id = s.columnOptionalInt(1);
  run.model_id = s.columnOptionalInt(2);
  run.method = s.columnText(3);
  run.status = engine::runStatusFromName(s.columnText(4));
  if (run.status == engine::RunStatus::Running && !writer_alive) {
    run.status = engine::RunStatus::Interrupted;
  }
  run.started_at = s.columnText(5);
  run.ended_at = s.columnText(6);
  run.answer = s.columnText(7);
  run.score = s.columnOptionalDouble(8);
  if (const auto correct = s.columnOptionalInt(9)) run.correct = *correct != 0;
  run.target_mass = s.columnOptionalDouble(10);
  run.target_margin = s.columnOptionalDouble(11);
  run.flops_prefill = s.columnOptionalDouble(12).value_or(0);
  run.flops_extra = s.columnOptionalDouble(13).value_or(0);
  run.wall_seconds = s.columnOptionalDouble(14).value_or(0);
  run.error = s.columnText(15);
  run.document_source = s.columnText(16);
  run.model_path = s.columnText(17);
  return run;
}

nlohmann::json parseStoredJson(const std::string& text, const std::string& path,
                               const std::string& field) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    throwError(ErrorKind::Session, path, field,
               std::string("stored JSON is invalid: ") + error.what());
  }
}

}  // namespace

SessionReader::SessionReader(const SessionStore& store) : m_store(store) {}

std::vector<RunSummary> SessionReader::queryRuns(const char* where, std::int64_t parameter) const {
  const bool writer_alive = m_store.writerAlive();
  return m_store.withDatabase([&](SqliteDatabase& db) {
    SqliteStatement statement(db, std::string(kRunColumns) + where + " ORDER BY r.id");
    if (std::string(where).find('?') != std::string::npos) {
      statement.bind(0, parameter);
    }
    std::vector<RunSummary> runs;
    while (statement.step()) runs.push_back(summaryOf(statement, writer_alive));
    return runs;
  });
}

std::vector<RunSummary> SessionReader::listRuns() const {
  return queryRuns("", 0);
}

std::vector<RunSummary> SessionReader::listRuns(std::int64_t document_id) const {
  return queryRuns("WHERE r.document_id = ?", document_id);
}

RunSummary SessionReader::run(std::int64_t run_id) const {
  std::vector<RunSummary> runs = queryRuns("WHERE r.id = ?", run_id);
  if (runs.empty()) {
    throwError(ErrorKind::Session, m_store.path(), "run",
               "no run " + std::to_string(run_id) + " in this session");
  }
  return runs.front();
}

void SessionReader::requireRun(std::int64_t run_id) const {
  const bool exists = m_store.withDatabase([&](SqliteDatabase& db) {
    SqliteStatement statement(db, "SELECT 1 FROM runs WHERE id = ?");
    statement.bind(0, run_id);
    return statement.step();
  });
  if (!exists) {
    throwError(ErrorKind::Session, m_store.path(), "run",
               "no run " + std::to_string(run_id) + " in this session");
  }
}

engine::RunSpec SessionReader::loadSpec(std::int64_t run_id) const {
  requireRun(run_id);
  const std::string text = m_store.withDatabase([&](SqliteDatabase& db) {
    SqliteStatement statement(db, "SELECT spec_json FROM runs WHERE id = ?");
    statement.bind(0, run_id);
    statement.step();
    return statement.columnText(0);
  });
  const std::string field = "runs[" + std::to_string(run_id) + "].spec_json";
  const nlohmann::json json = parseStoredJson(text, m_store.path(), field);
  try {
    return engine::RunSpec::fromJson(json);
  } catch (const Error& error) {
    throwError(ErrorKind::Session, m_store.path(), field, error.what());
  }
}

engine::RunResult SessionReader::loadResult(std::int64_t run_id) const {
  const RunSummary summary = run(run_id);
  engine::RunResult result;
  result.status = summary.status;
  result.answer = summary.answer;
  result.score = summary.score;
  result.correct = summary.correct;
  result.target_mass = summary.target_mass;
  result.target_margin = summary.target_margin;
  result.flops.prefill = summary.flops_prefill;
  result.flops.extra = summary.flops_extra;
  result.wall_seconds = summary.wall_seconds;
  result.error = summary.error;
  const auto [output, prompt_tokens, generated_tokens, result_json] =
      m_store.withDatabase([&](SqliteDatabase& db) {
        SqliteStatement statement(db,
                                  "SELECT output, prompt_tokens, generated_tokens, result_json "
                                  "FROM runs WHERE id = ?");
        statement.bind(0, run_id);
        statement.step();
        return std::make_tuple(statement.columnText(0), statement.columnOptionalInt(1),
                               statement.columnOptionalInt(2), statement.columnText(3));
      });
  result.output = output;
  result.prompt_tokens = prompt_tokens.value_or(0);
  result.generated_tokens = generated_tokens.value_or(0);
  if (!result_json.empty()) {
    const nlohmann::json json = parseStoredJson(result_json, m_store.path(),
                                                "runs[" + std::to_string(run_id) + "].result_json");
    if (json.contains("details") && json["details"].is_object()) result.details = json["details"];
    if (json.contains("provenance") && json["provenance"].is_object()) {
      result.provenance = json["provenance"];
    }
  }
  return result;
}

std::vector<StoredEvent> SessionReader::loadEvents(std::int64_t run_id,
                                                   const std::vector<std::string>& kinds) const {
  std::vector<bool> wanted(eventTables().size(), kinds.empty());
  for (const std::string& kind : kinds) wanted[eventKindIndex(kind)] = true;
  requireRun(run_id);
  return m_store.withDatabase([&](SqliteDatabase& db) {
    try {
      return loadRunEvents(db, run_id, wanted);
    } catch (const Error& error) {
      if (!error.where().empty()) throw;
      throwError(error.kind(), m_store.path(), error.field(),
                 "run " + std::to_string(run_id) + ": " + error.detail());
    }
  });
}

std::map<std::string, std::int64_t> SessionReader::eventCounts(std::int64_t run_id) const {
  requireRun(run_id);
  return m_store.withDatabase([&](SqliteDatabase& db) {
    SqliteReadTransaction snapshot(db);
    std::map<std::string, std::int64_t> counts;
    for (const EventTable& table : eventTables()) {
      SqliteStatement statement(
          db, std::string("SELECT count(*) FROM ") + table.table + " WHERE run_id = ?");
      statement.bind(0, run_id);
      statement.step();
      counts[table.kind] = statement.columnInt(0);
    }
    return counts;
  });
}

std::vector<DocumentInfo> SessionReader::listDocuments() const {
  return m_store.withDatabase([&](SqliteDatabase& db) {
    SqliteStatement statement(db,
                              "SELECT id, content_hash, source, byte_length, created_at "
                              "FROM documents ORDER BY id");
    std::vector<DocumentInfo> documents;
    while (statement.step()) {
      documents.push_back({statement.columnInt(0), statement.columnText(1), statement.columnText(2),
                           statement.columnInt(3), statement.columnText(4), ""});
    }
    return documents;
  });
}

DocumentInfo SessionReader::document(std::int64_t document_id) const {
  std::optional<DocumentInfo> found = m_store.withDatabase([&](SqliteDatabase& db) {
    SqliteStatement statement(db,
                              "SELECT id, content_hash, source, byte_length, created_at, text "
                              "FROM documents WHERE id = ?");
    statement.bind(0, document_id);
    std::optional<DocumentInfo> document;
    if (statement.step()) {
      document =
          DocumentInfo{statement.columnInt(0), statement.columnText(1), statement.columnText(2),
                       statement.columnInt(3), statement.columnText(4), statement.columnText(5)};
    }
    return document;
  });
  if (!found) {
    throwError(ErrorKind::Session, m_store.path(), "document",
               "no document " + std::to_string(document_id) + " in this session");
  }
  return *found;
}

std::vector<ModelInfo> SessionReader::listModels() const {
  return m_store.withDatabase([&](SqliteDatabase& db) {
    SqliteStatement statement(db,
                              "SELECT id, path, config_hash, config_json, created_at "
                              "FROM models ORDER BY id");
    std::vector<ModelInfo> models;
    while (statement.step()) {
      models.push_back({statement.columnInt(0), statement.columnText(1), statement.columnText(2),
                        statement.columnText(3), statement.columnText(4)});
    }
    return models;
  });
}

DocumentComparison SessionReader::compareDocumentRuns(std::int64_t document_id) const {
  DocumentComparison comparison;
  comparison.document_id = document_id;
  comparison.runs = listRuns(document_id);
  std::map<std::int64_t, std::size_t> row_of;
  for (std::size_t i = 0; i < comparison.runs.size(); ++i) row_of[comparison.runs[i].id] = i;

  // (kind, phase, metric) -> step -> run row -> value; ordered maps give the sorted output.
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::map<std::int64_t, std::map<std::size_t, double>>> collected;
  auto collect = [&](const char* kind, const char* sql, std::vector<const char*> metrics) {
    m_store.withDatabase([&](SqliteDatabase& db) {
      SqliteStatement statement(db, sql);
      statement.bind(0, document_id);
      while (statement.step()) {
        const std::size_t row = row_of.at(statement.columnInt(0));
        const std::string phase = statement.columnText(1);
        const std::int64_t step = statement.columnInt(2);
        for (std::size_t m = 0; m < metrics.size(); ++m) {
          collected[{kind, phase, metrics[m]}][step][row] =
              statement.columnDouble(static_cast<int>(3 + m));
        }
      }
      return 0;
    });
  };
  // Ordered by seq, so a later value at the same step overwrites an earlier one.
  collect("step_metric",
          "SELECT e.run_id, e.phase, e.step, e.loss, e.grad_norm, e.learning_rate "
          "FROM step_metrics e JOIN runs r ON r.id = e.run_id WHERE r.document_id = ? "
          "ORDER BY e.run_id, e.seq",
          {"loss", "grad_norm", "learning_rate"});
  collect("probe",
          "SELECT e.run_id, e.phase, e.step, e.mean_mass, e.mean_margin "
          "FROM probes e JOIN runs r ON r.id = e.run_id WHERE r.document_id = ? "
          "ORDER BY e.run_id, e.seq",
          {"mean_mass", "mean_margin"});

  const double missing = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [key, by_step] : collected) {
    AlignedSeries series;
    std::tie(series.kind, series.phase, series.metric) = key;
    series.values.assign(comparison.runs.size(), std::vector<double>(by_step.size(), missing));
    std::size_t column = 0;
    for (const auto& [step, by_row] : by_step) {
      series.steps.push_back(step);
      for (const auto& [row, value] : by_row) series.values[row][column] = value;
      ++column;
    }
    comparison.series.push_back(std::move(series));
  }
  return comparison;
}

}  // namespace studio::sessions

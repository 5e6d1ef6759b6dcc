#include "sessions/session_export.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/common/error.h"
#include "sessions/event_json.h"
#include "sessions/event_tables.h"
#include "sessions/session_reader.h"
#include "sessions/session_schema.h"
#include "sessions/session_store.h"
#include "sessions/sqlite_database.h"

namespace studio::sessions {

namespace {

using nlohmann::json;

// Token pieces may be partial UTF-8; JSON needs valid text, so those bytes become U+FFFD.
std::string dumpJson(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// An output file that only appears under its name once close() succeeded.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path) : m_path(std::move(path)), m_temp(m_path + ".partial") {
    m_out.open(m_temp, std::ios::binary | std::ios::trunc);
    if (!m_out) {
      throwError(ErrorKind::Io, m_path, "", std::string("cannot write: ") + std::strerror(errno));
    }
  }
  ~AtomicFile() {
    if (m_out.is_open()) {
      m_out.close();
      std::remove(m_temp.c_str());
    }
  }
  std::ostream& out() { return m_out; }
  void close() {
    m_out.close();
    if (!m_out) throwError(ErrorKind::Io, m_path, "", "writing failed (disk full?)");
    std::error_code error;
    std::filesystem::rename(m_temp, m_path, error);
    if (error) {
      std::remove(m_temp.c_str());
      throwError(ErrorKind::Io, m_path, "", "cannot rename the finished file: " + error.message());
    }
  }

 private:
  std::string m_path;
  std::string m_temp;
  std::ofstream m_out;
};

std::vector<RunSummary> selectedRuns(const SessionReader& reader, RunSelection runs) {
  if (runs) return {reader.run(*runs)};
  return reader.listRuns();
}

json runToJson(const SessionReader& reader, const RunSummary& run, std::size_t& events) {
  auto optional = [](const auto& value) { return value ? json(*value) : json(nullptr); };
  json out = {{"id", run.id},
              {"document_id", optional(run.document_id)},
              {"model_id", optional(run.model_id)},
              {"method", run.method},
              {"status", engine::runStatusName(run.status)},
              {"started_at", run.started_at},
              {"ended_at", run.ended_at.empty() ? json(nullptr) : json(run.ended_at)},
              {"document_source", run.document_source},
              {"model_path", run.model_path},
              {"spec", reader.loadSpec(run.id).toJson()},
              {"result", reader.loadResult(run.id).toJson()},
              {"event_counts", reader.eventCounts(run.id)}};
  json list = json::array();
  for (const StoredEvent& stored : reader.loadEvents(run.id)) {
    json event = eventToJson(stored.event);
    event["seq"] = stored.seq;
    list.push_back(std::move(event));
  }
  events += list.size();
  out["events"] = std::move(list);
  return out;
}

// --- CSV ---

std::string csvValue(const SqliteStatement& statement, int column) {
  switch (statement.columnType(column)) {
    case SQLITE_NULL:
      return "";
    case SQLITE_INTEGER:
      return std::to_string(statement.columnInt(column));
    case SQLITE_FLOAT:
      return formatDouble(statement.columnDouble(column));
    case SQLITE_BLOB: {
      // The only blobs are artifacts' float32 arrays: written as a JSON array of numbers.
      const std::string_view blob = statement.columnBlob(column);
      std::vector<double> values(blob.size() / sizeof(float));
      for (std::size_t i = 0; i < values.size(); ++i) {
        float value = 0;
        std::memcpy(&value, blob.data() + i * sizeof(float), sizeof(float));
        values[i] = value;
      }
      return csvField(doubleArrayJson(values));
    }
    default:
      return csvField(statement.columnText(column));
  }
}

// Writes the rows of `sql` (with ?1 bound to the run when one is selected); returns the rows.
std::size_t writeCsv(SqliteDatabase& db, const std::string& sql, RunSelection runs,
                     const std::string& path) {
  SqliteStatement statement(db, sql);
  if (runs) statement.bind(0, *runs);
  AtomicFile file(path);
  std::ostream& out = file.out();
  for (int c = 0; c < statement.columnCount(); ++c) {
    out << (c ? "," : "") << csvField(statement.columnName(c));
  }
  out << "\r\n";
  std::size_t rows = 0;
  std::string line;
  while (statement.step()) {
    line.clear();
    for (int c = 0; c < statement.columnCount(); ++c) {
      if (c) line += ',';
      line += csvValue(statement, c);
    }
    out << line << "\r\n";
    ++rows;
  }
  file.close();
  return rows;
}

}  // namespace

std::size_t writeEventTableCsv(SqliteDatabase& db, const std::string& table, RunSelection runs,
                               const std::string& path) {
  const std::string order =
      table == "probe_stats" ? "run_id, seq, head_slot, query_slot" : "run_id, seq";
  return writeCsv(
      db, "SELECT * FROM " + table + (runs ? " WHERE run_id = ?1" : "") + " ORDER BY " + order,
      runs, path);
}

std::string csvField(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string csvSiblingPath(const std::string& out_path, const std::string& table) {
  const std::filesystem::path path(out_path);
  std::string stem = path.filename().string();
  if (path.extension() == ".csv") stem = path.stem().string();
  return (path.parent_path() / (stem + "." + table + ".csv")).string();
}

ExportSummary exportSessionJson(const SessionStore& store, RunSelection runs,
                                const std::string& out_path) {
  const SessionReader reader(store);
  const std::vector<RunSummary> selected = selectedRuns(reader, runs);
  ExportSummary summary;

  std::set<std::int64_t> document_ids;
  std::set<std::int64_t> model_ids;
  for (const RunSummary& run : selected) {
    if (run.document_id) document_ids.insert(*run.document_id);
    if (run.model_id) model_ids.insert(*run.model_id);
  }
  json documents = json::array();
  for (const DocumentInfo& listed : reader.listDocuments()) {
    if (!document_ids.count(listed.id)) continue;
    const DocumentInfo document = reader.document(listed.id);
    documents.push_back({{"id", document.id},
                         {"content_hash", document.content_hash},
                         {"source", document.source},
                         {"byte_length", document.byte_length},
                         {"created_at", document.created_at},
                         {"text", document.text}});
  }
  json models = json::array();
  for (const ModelInfo& model : reader.listModels()) {
    if (!model_ids.count(model.id)) continue;
    models.push_back({{"id", model.id},
                      {"path", model.path},
                      {"config_hash", model.config_hash},
                      {"config", json::parse(model.config_json, nullptr, false)},
                      {"created_at", model.created_at}});
  }

  AtomicFile file(out_path);
  std::ostream& out = file.out();
  // Written run by run, so a large session never has to sit in memory as one JSON tree.
  const json head = {{"format", "ttt-studio-session-export"},
                     {"format_version", 1},
                     {"session", store.path()},
                     {"schema_version", kSchemaVersion},
                     {"documents", std::move(documents)},
                     {"models", std::move(models)}};
  std::string text = dumpJson(head);
  text.pop_back();  // the closing brace: "runs" follows
  out << text << ",\"runs\":[";
  // Each run is read whole before any of it is written: one that cannot be read leaves no trace.
  const auto read_run = [&](const RunSummary& run) {
    std::size_t events = 0;
    std::string run_text = dumpJson(runToJson(reader, run, events));
    return std::make_pair(std::move(run_text), events);
  };
  const auto write_run = [&](const RunSummary&, const std::pair<std::string, std::size_t>& run) {
    out << (summary.runs++ ? "," : "") << run.first;
    summary.events += run.second;
  };
  if (runs) {
    write_run(selected.front(), read_run(selected.front()));  // its error is the export's
  } else {
    summary.unreadable = readEachRun(selected, read_run, write_run);
  }
  json unreadable = json::array();
  for (const UnreadableRun& run : summary.unreadable) {
    unreadable.push_back({{"id", run.id}, {"error", run.error}});
  }
  out << "],\"unreadable_runs\":" << dumpJson(unreadable) << "}\n";
  file.close();
  summary.files.push_back(out_path);
  return summary;
}

ExportSummary exportSessionCsv(const SessionStore& store, RunSelection runs,
                               const std::string& out_path) {
  const SessionReader reader(store);
  if (runs) reader.run(*runs);  // names a missing run before any file is written
  ExportSummary summary;
  store.withDatabase([&](SqliteDatabase& db) {
    // One read transaction, so the runs and their events come from the same moment even while
    // a writer keeps committing.
    SqliteReadTransaction snapshot(db);
    {
      const std::string run_filter = runs ? " WHERE r.id = ?1" : "";
      summary.runs = writeCsv(db,
                              "SELECT r.*, d.source AS document_source, m.path AS model_path "
                              "FROM runs r LEFT JOIN documents d ON d.id = r.document_id "
                              "LEFT JOIN models m ON m.id = r.model_id" +
                                  run_filter + " ORDER BY r.id",
                              runs, out_path);
      summary.files.push_back(out_path);
      const std::string by_run =
          runs ? " WHERE id IN (SELECT document_id FROM runs WHERE id = ?1)" : "";
      std::string path = csvSiblingPath(out_path, "documents");
      writeCsv(db, "SELECT * FROM documents" + by_run + " ORDER BY id", runs, path);
      summary.files.push_back(path);
      path = csvSiblingPath(out_path, "models");
      writeCsv(db,
               "SELECT * FROM models" +
                   (runs ? std::string(" WHERE id IN (SELECT model_id FROM runs WHERE id = ?1)")
                         : std::string()) +
                   " ORDER BY id",
               runs, path);
      summary.files.push_back(path);
      std::vector<std::string> tables;
      for (const EventTable& table : eventTables()) {
        tables.push_back(table.table);
        if (std::string(table.table) == "probes") tables.push_back("probe_stats");
      }
      for (const std::string& table : tables) {
        path = csvSiblingPath(out_path, table);
        const std::size_t rows = writeEventTableCsv(db, table, runs, path);
        if (table != "probe_stats") summary.events += rows;
        summary.files.push_back(path);
      }
    }
    return 0;
  });
  return summary;
}

}  // namespace studio::sessions

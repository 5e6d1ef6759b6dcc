#pragma once
// Reading a session back: the runs, their specs, results and events, and the runs of one document
// side by side. What the views and the exports show comes from here, so it is what was stored.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/events.h"
#include "core/engine/run_result.h"
#include "core/engine/run_spec.h"
#include "sessions/event_loader.h"

namespace studio::sessions {

class SessionStore;

// One row of the run list.
struct RunSummary {
  std::int64_t id = 0;
  std::optional<std::int64_t> document_id;
  std::optional<std::int64_t> model_id;
  std::string method;
  // As stored, except that a run stored as `running` reads as `interrupted` when no live process
  // holds the session's writer lock (the next read-write open will mark it so).
  engine::RunStatus status = engine::RunStatus::Running;
  std::string started_at;  // ISO 8601 UTC; "" when unknown
  std::string ended_at;
  std::string answer;
  std::optional<double> score;
  std::optional<bool> correct;
  std::optional<double> target_mass;
  std::optional<double> target_margin;
  double flops_prefill = 0;
  double flops_extra = 0;
  double wall_seconds = 0;
  std::string error;
  std::string document_source;  // from the documents table, "" without a document
  std::string model_path;       // from the models table, "" without a model
};

struct DocumentInfo {
  std::int64_t id = 0;
  std::string content_hash;
  std::string source;
  std::int64_t byte_length = 0;
  std::string created_at;
  std::string text;  // empty unless asked for
};

struct ModelInfo {
  std::int64_t id = 0;
  std::string path;
  std::string config_hash;
  std::string config_json;
  std::string created_at;
};

// One metric of the runs of a document on a common step axis, ready to draw on one plot.
struct AlignedSeries {
  std::string kind;    // "step_metric" or "probe"
  std::string phase;   // "qttt", "train", ... (step metrics); "qttt_step", "decode", ... (probes)
  std::string metric;  // loss, grad_norm, learning_rate (step metrics); mean_mass, mean_margin
  std::vector<std::int64_t> steps;          // every step any run has, ascending
  std::vector<std::vector<double>> values;  // [run][step]; NaN where that run has no value
};

struct DocumentComparison {
  std::int64_t document_id = 0;
  std::vector<RunSummary> runs;       // ascending id; the row order of every series' values
  std::vector<AlignedSeries> series;  // sorted by kind, phase, metric
};

class SessionReader {
 public:
  explicit SessionReader(const SessionStore& store);

  // Every run, ascending id; or the runs of one document.
  std::vector<RunSummary> listRuns() const;
  std::vector<RunSummary> listRuns(std::int64_t document_id) const;
  // Throws studio::Error (Session) naming the run when it does not exist (so do the loaders).
  RunSummary run(std::int64_t run_id) const;
  engine::RunSpec loadSpec(std::int64_t run_id) const;
  // The stored result; a run that has not finished has its (effective) status and no outputs.
  engine::RunResult loadResult(std::int64_t run_id) const;
  // The run's events in seq order: all, or those of the given kinds (engine::eventKindName
  // names; an unknown name throws studio::Error (Argument)).
  std::vector<StoredEvent> loadEvents(std::int64_t run_id,
                                      const std::vector<std::string>& kinds = {}) const;
  // Events per kind name (kinds without events included, as 0).
  std::map<std::string, std::int64_t> eventCounts(std::int64_t run_id) const;

  std::vector<DocumentInfo> listDocuments() const;        // without their text
  DocumentInfo document(std::int64_t document_id) const;  // with its text
  std::vector<ModelInfo> listModels() const;

  // The runs of one document with their per-step series keyed by step. When a run has several
  // values at one step (one per branch, say), the last one stored wins.
  DocumentComparison compareDocumentRuns(std::int64_t document_id) const;

 private:
  std::vector<RunSummary> queryRuns(const char* where, std::int64_t parameter) const;
  void requireRun(std::int64_t run_id) const;

  const SessionStore& m_store;
};

}  // namespace studio::sessions

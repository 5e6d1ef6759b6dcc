#include "sessions/sample_log.h"

#include "core/model/atomic_file_writer.h"
#include "sessions/content_hash.h"
#include "sessions/session_reader.h"

namespace studio::sessions {

using nlohmann::json;

namespace {

json optionalJson(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

}  // namespace

json sampleRecord(const RunSummary& run, const engine::RunSpec& spec,
                  const engine::RunResult& result) {
  // The prompt's inputs, not its template: two runs with one hash read the same item, whichever
  // method's template wrapped it.
  const std::string prompt_inputs = json{
      {"task", spec.task_description},
      {"context", spec.document_text},
      {"question", spec.question}}.dump();
  json record = {
      {"run_id", run.id},
      {"status", engine::runStatusName(run.status)},
      {"task", spec.task},
      {"item_id", spec.task_meta.value("item_id", "")},
      {"seed", spec.seed},
      {"length", spec.task_meta.contains("sweep_length") ? spec.task_meta["sweep_length"] : json()},
      {"prompt_tokens", result.prompt_tokens},
      {"method", spec.method},
      {"label", spec.task_meta.value("sweep_label", spec.method)},
      {"params", spec.params},
      {"rope", spec.rope},
      {"prompt_hash", contentHash(prompt_inputs)},
      {"doc_hash", contentHash(spec.document_text)},
      {"output", result.output},
      {"answer", result.answer},
      {"references", spec.reference_answers},
      {"scorer", spec.scorer},
      {"score", optionalJson(result.score)},
      {"correct", result.correct ? json(*result.correct) : json(nullptr)},
      {"target_mass", optionalJson(result.target_mass)},
      {"target_margin", optionalJson(result.target_margin)},
      {"flops", result.flops.total()},
      {"wall_seconds", result.wall_seconds},
      {"provenance", result.provenance}};
  if (!result.error.empty()) record["error"] = result.error;
  return record;
}

ExportSummary writeSampleLog(const SessionStore& store, RunSelection runs,
                             const std::string& path) {
  const SessionReader reader(store);
  model::AtomicFileWriter file(path);
  ExportSummary summary;
  const auto read_record = [&](const RunSummary& run) {
    return sampleRecord(run, reader.loadSpec(run.id), reader.loadResult(run.id)).dump() + "\n";
  };
  const auto write_record = [&](const RunSummary&, const std::string& line) {
    file.write(line);
    ++summary.runs;
  };
  if (runs) {
    const RunSummary run = reader.run(*runs);
    write_record(run, read_record(run));  // the run asked for: its error is the export's
  } else {
    summary.unreadable = readEachRun(reader.listRuns(), read_record, write_record);
  }
  file.commit();
  summary.files.push_back(path);
  return summary;
}

}  // namespace studio::sessions

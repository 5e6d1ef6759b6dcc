#include "sessions/run_recorder.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/common/error.h"

namespace studio::sessions {

std::string modelConfigText(const std::string& model_path) {
  if (model_path.empty()) return "{}";
  const auto path = std::filesystem::path(model_path) / "config.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "{}";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

RunRecorder::RunRecorder(SessionStore& store, SessionWriter& writer,
                         std::string model_config_json, std::optional<std::int64_t> queued_run_id)
    : m_store(store),
      m_writer(writer),
      m_model_config_json(std::move(model_config_json)),
      m_run_id(queued_run_id),
      m_queued(queued_run_id.has_value()) {}

void RunRecorder::runStarted(const engine::RunSpec& spec) {
  if (m_queued) {
    m_store.startRun(*m_run_id, spec);
    m_queued = false;
    return;
  }
  const std::string config =
      m_model_config_json.empty() ? modelConfigText(spec.model_path) : m_model_config_json;
  m_run_id = m_store.beginRun(spec, config);
}

void RunRecorder::event(const engine::Event& event) {
  if (!m_run_id) {
    throwError(ErrorKind::Internal, m_store.path(), "run", "an event arrived before the run began");
  }
  m_writer.append(*m_run_id, event);
}

void RunRecorder::runFinished(const engine::RunResult& result) {
  if (!m_run_id) {
    throwError(ErrorKind::Internal, m_store.path(), "run", "a run finished before it began");
  }
  m_writer.finishRun(*m_run_id, result);
  m_writer.flush();
}

}  // namespace studio::sessions

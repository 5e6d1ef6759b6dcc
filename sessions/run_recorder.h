#pragma once
// An engine::EventSink that records one run into a session: the run row when it starts (with its
// document and model), every event through the session's writer thread, and the result when it
// finishes. `studio-cli run --session FILE` and the studio window record runs with it.

#include <cstdint>
#include <optional>
#include <string>

#include "core/engine/run_executor.h"
#include "sessions/session_store.h"
#include "sessions/session_writer.h"

namespace studio::sessions {

// <model_path>/config.json as text, "{}" when there is none: what a run's model row stores.
std::string modelConfigText(const std::string& model_path);

class RunRecorder : public engine::EventSink {
 public:
  // `store` and `writer` must outlive the recorder; `writer` writes into `store`.
  // `model_config_json`: the model's config.json text stored with the run's model row; empty:
  // read from <spec.model_path>/config.json when the run starts ("{}" when there is none).
  // `queued_run_id`: the run's row when it was queued (SessionStore::queueRun) before it started.
  RunRecorder(SessionStore& store, SessionWriter& writer, std::string model_config_json = {},
              std::optional<std::int64_t> queued_run_id = std::nullopt);

  // Adds the run (status running) to the session, or starts its queued row. Throws
  // studio::Error (Session) when the store cannot take it (read-only, locked).
  void runStarted(const engine::RunSpec& spec) override;
  // Queues the event; events before runStarted are an internal error.
  void event(const engine::Event& event) override;
  // Queues the result after every queued event, then waits until the writer committed both. A
  // queued run that never started (cancelled while queued) gets its result all the same.
  void runFinished(const engine::RunResult& result) override;

  // The run's id in the session, once started.
  std::optional<std::int64_t> runId() const { return m_run_id; }

 private:
  SessionStore& m_store;
  SessionWriter& m_writer;
  std::string m_model_config_json;
  std::optional<std::int64_t> m_run_id;
  bool m_queued = false;  // m_run_id is a queued row not started yet
};

}  // namespace studio::sessions

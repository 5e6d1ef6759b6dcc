#include "core/engine/run_result.h"

#include "core/common/error.h"

namespace studio::engine {

const char* runStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::Queued: return "queued";
    case RunStatus::Running: return "running";
    case RunStatus::Completed: return "completed";
    case RunStatus::Failed: return "failed";
    case RunStatus::Cancelled: return "cancelled";
    case RunStatus::Interrupted: return "interrupted";
  }
  return "unknown";
}

RunStatus runStatusFromName(const std::string& name) {
  for (RunStatus status : {RunStatus::Queued, RunStatus::Running, RunStatus::Completed,
                           RunStatus::Failed, RunStatus::Cancelled, RunStatus::Interrupted}) {
    if (name == runStatusName(status)) return status;
  }
  throwError(ErrorKind::Format, "", "status", "unknown run status '" + name + "'");
}

nlohmann::json RunResult::toJson() const {
  using nlohmann::json;
  json out = {{"status", runStatusName(status)},
              {"output", output},
              {"answer", answer},
              {"flops", {{"prefill", flops.prefill}, {"extra", flops.extra},
                         {"total", flops.total()}}},
              {"wall_seconds", wall_seconds},
              {"prompt_tokens", prompt_tokens},
              {"generated_tokens", generated_tokens},
              {"details", details},
              {"provenance", provenance}};
  out["score"] = score ? json(*score) : json(nullptr);
  out["correct"] = correct ? json(*correct) : json(nullptr);
  out["target_mass"] = target_mass ? json(*target_mass) : json(nullptr);
  out["target_margin"] = target_margin ? json(*target_margin) : json(nullptr);
  if (!error.empty()) out["error"] = error;
  return out;
}

}  // namespace studio::engine

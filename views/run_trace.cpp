#include "views/run_trace.h"

#include <type_traits>

#include "sessions/session_reader.h"

namespace studio::views {

void RunTrace::add(const engine::Event& event) {
  std::visit(
      [this](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, engine::ProgressEvent>) {
          progress = e;
        } else if constexpr (std::is_same_v<T, engine::StepMetricEvent>) {
          steps.push_back(e);
        } else if constexpr (std::is_same_v<T, engine::ProbeEvent>) {
          probes.push_back(e);
        } else if constexpr (std::is_same_v<T, engine::TokenEvent>) {
          if (e.phase == "answer" && e.branch == 0) answer_text += e.text;
        }
      },
      event);
}

std::string RunTrace::label() const {
  return "#" + std::to_string(id) + " " + spec.method;
}

std::string RunTrace::parameterText() const {
  std::string text = spec.method;
  if (spec.params.is_object()) {
    for (auto it = spec.params.begin(); it != spec.params.end(); ++it) {
      text += " " + it.key() + "=" +
              (it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
    }
  }
  if (spec.budget_flops) {
    char budget[32];
    std::snprintf(budget, sizeof budget, "%.3g", *spec.budget_flops);
    text += std::string(" budget=") + budget + " FLOP";
  }
  return text;
}

const probe::ProbeResult* RunTrace::firstProbe(const std::string& phase) const {
  for (const engine::ProbeEvent& p : probes) {
    if (p.phase == phase) return &p.result;
  }
  return nullptr;
}

const probe::ProbeResult* RunTrace::lastProbe(const std::string& phase) const {
  for (auto it = probes.rbegin(); it != probes.rend(); ++it) {
    if (it->phase == phase) return &it->result;
  }
  return nullptr;
}

const probe::ProbeResult* RunTrace::probeBefore() const {
  return firstProbe("prefill");
}

const probe::ProbeResult* RunTrace::probeAfter() const {
  if (const probe::ProbeResult* adapted = lastProbe("qttt_step")) return adapted;
  return firstProbe("decode");
}

RunTrace loadRunTrace(const sessions::SessionReader& reader, std::int64_t run_id) {
  RunTrace trace;
  trace.id = run_id;
  trace.spec = reader.loadSpec(run_id);
  trace.result = reader.loadResult(run_id);
  for (const sessions::StoredEvent& stored :
       reader.loadEvents(run_id, {"progress", "step_metric", "probe", "token"})) {
    trace.add(stored.event);
  }
  return trace;
}

}  // namespace studio::views

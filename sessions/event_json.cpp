#include "sessions/event_json.h"

namespace studio::sessions {

namespace {

using nlohmann::json;

json probeResultToJson(const probe::ProbeResult& r) {
  json heads = json::array();
  for (const probe::HeadStats& head : r.heads) {
    json queries = json::array();
    for (const probe::QueryStats& q : head.queries) {
      queries.push_back({{"pos", q.pos},
                         {"lse", q.lse},
                         {"mass", q.mass},
                         {"margin", q.margin},
                         {"margin_best", q.margin_best},
                         {"max_target_logit", q.max_target_logit},
                         {"near_ties", q.near_ties},
                         {"dilution_bound", q.dilution_bound}});
    }
    heads.push_back({{"layer", head.layer}, {"head", head.head}, {"queries", std::move(queries)}});
  }
  return {{"deltas", r.deltas},
          {"epsilon", r.epsilon},
          {"context_length", r.context_length},
          {"required_margin", r.required_margin},
          {"num_layers", r.num_layers},
          {"num_heads", r.num_heads},
          {"heads", std::move(heads)},
          {"mean_mass", r.mean_mass},
          {"mean_margin", r.mean_margin},
          {"mean_mass_per_layer", r.mean_mass_per_layer}};
}

struct ToJson {
  json operator()(const engine::ProgressEvent& e) const {
    return {{"stage", e.stage},
            {"fraction", e.fraction},
            {"done", e.done},
            {"total", e.total},
            {"eta_seconds", e.eta_seconds}};
  }
  json operator()(const engine::StepMetricEvent& e) const {
    return {{"phase", e.phase},
            {"step", e.step},
            {"loss", e.loss},
            {"grad_norm", e.grad_norm},
            {"learning_rate", e.learning_rate},
            {"span_start", e.span_start},
            {"span_length", e.span_length},
            {"wall_seconds", e.wall_seconds}};
  }
  json operator()(const engine::ProbeEvent& e) const {
    return {{"phase", e.phase}, {"step", e.step}, {"result", probeResultToJson(e.result)}};
  }
  json operator()(const engine::TokenEvent& e) const {
    return {{"index", e.index},     {"token_id", e.token_id}, {"text", e.text},
            {"logprob", e.logprob}, {"phase", e.phase},       {"branch", e.branch}};
  }
  json operator()(const engine::FastWeightLossEvent& e) const {
    return {{"layer", e.layer},
            {"position", e.position},
            {"loss_initial", e.loss_initial},
            {"loss_before", e.loss_before},
            {"loss_after", e.loss_after}};
  }
  json operator()(const engine::RoutingEvent& e) const {
    return {{"layer", e.layer},        {"position", e.position},
            {"loss", e.loss},          {"threshold", e.threshold},
            {"routed", e.routed},      {"cache_occupancy", e.cache_occupancy},
            {"evictions", e.evictions}};
  }
  json operator()(const engine::RewardEvent& e) const {
    return {{"step", e.step},
            {"position", e.position},
            {"reward_phi", e.reward_phi},
            {"reward_binary", e.reward_binary},
            {"reward", e.reward},
            {"advantage", e.advantage}};
  }
  json operator()(const engine::ArtifactEvent& e) const {
    json meta = json::object();
    if (!e.meta_json.empty()) meta = json::parse(e.meta_json, nullptr, false);
    if (meta.is_discarded()) meta = e.meta_json;  // kept as text when it is not JSON
    return {{"name", e.name},
            {"kind", e.kind},
            {"shape", e.shape},
            {"meta", std::move(meta)},
            {"data", e.data}};
  }
  json operator()(const engine::LogEvent& e) const {
    return {{"level", e.level}, {"message", e.message}};
  }
};

}  // namespace

nlohmann::json eventToJson(const engine::Event& event) {
  json out = std::visit(ToJson{}, event);
  out["kind"] = engine::eventKindName(event);
  return out;
}

}  // namespace studio::sessions

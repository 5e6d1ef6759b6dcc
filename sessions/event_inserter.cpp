#include "sessions/event_inserter.h"

#include <nlohmann/json.hpp>

#include "sessions/event_tables.h"
#include "sessions/sqlite_database.h"

namespace studio::sessions {

struct EventInserter::Statements {
  explicit Statements(SqliteDatabase& db)
      : progress(db,
                 "INSERT INTO progress (run_id, seq, stage, fraction, done, total, eta_seconds) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)"),
        step_metric(db,
                    "INSERT INTO step_metrics (run_id, seq, phase, step, loss, grad_norm, "
                    "learning_rate, span_start, span_length, wall_seconds) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        probe(db,
              "INSERT INTO probes (run_id, seq, phase, step, deltas_json, epsilon, "
              "context_length, required_margin, num_layers, num_heads, mean_mass, mean_margin, "
              "mean_mass_per_layer_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        probe_stat(db,
                   "INSERT INTO probe_stats (run_id, seq, head_slot, query_slot, layer, head, "
                   "pos, lse, mass, margin, margin_best, max_target_logit, near_ties_json, "
                   "dilution_bound_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        token(db,
              "INSERT INTO tokens (run_id, seq, phase, branch, token_index, token_id, text, "
              "logprob) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
        fast_weight_loss(db,
                         "INSERT INTO fast_weight_losses (run_id, seq, layer, position, "
                         "loss_initial, loss_before, loss_after) VALUES (?, ?, ?, ?, ?, ?, ?)"),
        routing(db,
                "INSERT INTO routing (run_id, seq, layer, position, loss, threshold, routed, "
                "cache_occupancy, evictions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        reward(db,
               "INSERT INTO rewards (run_id, seq, step, position, reward_phi, reward_binary, "
               "reward, advantage) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
        artifact(db,
                 "INSERT INTO artifacts (run_id, seq, name, kind, shape_json, meta_json, data) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)"),
        log(db, "INSERT INTO logs (run_id, seq, level, message) VALUES (?, ?, ?, ?)") {}

  SqliteStatement progress, step_metric, probe, probe_stat, token, fast_weight_loss, routing,
      reward, artifact, log;
};

namespace {

struct InsertVisitor {
  std::int64_t run_id;
  std::int64_t seq;
  EventInserter::Statements& s;

  SqliteStatement& start(SqliteStatement& statement) const {
    return statement.bind(0, run_id).bind(1, seq);
  }

  void operator()(const engine::ProgressEvent& e) const {
    start(s.progress).bind(2, e.stage).bind(3, e.fraction).bind(4, e.done).bind(5, e.total);
    s.progress.bind(6, e.eta_seconds).run();
  }
  void operator()(const engine::StepMetricEvent& e) const {
    start(s.step_metric).bind(2, e.phase).bind(3, e.step).bind(4, e.loss).bind(5, e.grad_norm);
    s.step_metric.bind(6, e.learning_rate).bind(7, e.span_start).bind(8, e.span_length);
    s.step_metric.bind(9, e.wall_seconds).run();
  }
  void operator()(const engine::ProbeEvent& e) const {
    const probe::ProbeResult& r = e.result;
    start(s.probe).bind(2, e.phase).bind(3, e.step).bind(4, doubleArrayJson(r.deltas));
    s.probe.bind(5, r.epsilon).bind(6, r.context_length).bind(7, r.required_margin);
    s.probe.bind(8, r.num_layers).bind(9, r.num_heads).bind(10, r.mean_mass);
    s.probe.bind(11, r.mean_margin).bind(12, doubleArrayJson(r.mean_mass_per_layer)).run();
    for (std::size_t h = 0; h < r.heads.size(); ++h) {
      const probe::HeadStats& head = r.heads[h];
      for (std::size_t q = 0; q < head.queries.size(); ++q) {
        const probe::QueryStats& query = head.queries[q];
        start(s.probe_stat).bind(2, static_cast<std::int64_t>(h));
        s.probe_stat.bind(3, static_cast<std::int64_t>(q)).bind(4, head.layer).bind(5, head.head);
        s.probe_stat.bind(6, query.pos).bind(7, query.lse).bind(8, query.mass);
        s.probe_stat.bind(9, query.margin).bind(10, query.margin_best);
        s.probe_stat.bind(11, query.max_target_logit).bind(12, intArrayJson(query.near_ties));
        s.probe_stat.bind(13, doubleArrayJson(query.dilution_bound)).run();
      }
    }
  }
  void operator()(const engine::TokenEvent& e) const {
    start(s.token).bind(2, e.phase).bind(3, e.branch).bind(4, e.index).bind(5, e.token_id);
    s.token.bind(6, e.text).bind(7, e.logprob).run();
  }
  void operator()(const engine::FastWeightLossEvent& e) const {
    start(s.fast_weight_loss).bind(2, e.layer).bind(3, e.position).bind(4, e.loss_initial);
    s.fast_weight_loss.bind(5, e.loss_before).bind(6, e.loss_after).run();
  }
  void operator()(const engine::RoutingEvent& e) const {
    start(s.routing).bind(2, e.layer).bind(3, e.position).bind(4, e.loss).bind(5, e.threshold);
    s.routing.bind(6, e.routed).bind(7, e.cache_occupancy).bind(8, e.evictions).run();
  }
  void operator()(const engine::RewardEvent& e) const {
    start(s.reward).bind(2, e.step).bind(3, e.position).bind(4, e.reward_phi);
    s.reward.bind(5, e.reward_binary).bind(6, e.reward).bind(7, e.advantage).run();
  }
  void operator()(const engine::ArtifactEvent& e) const {
    start(s.artifact).bind(2, e.name).bind(3, e.kind).bind(4, intArrayJson(e.shape));
    s.artifact.bind(5, e.meta_json.empty() ? std::string("{}") : e.meta_json);
    s.artifact.bindBlob(6, e.data.data(), e.data.size() * sizeof(float)).run();
  }
  void operator()(const engine::LogEvent& e) const {
    start(s.log).bind(2, e.level).bind(3, e.message).run();
  }
};

}  // namespace

EventInserter::EventInserter(SqliteDatabase& db) : m_statements(std::make_unique<Statements>(db)) {}

EventInserter::~EventInserter() = default;

void EventInserter::insert(std::int64_t run_id, std::int64_t seq, const engine::Event& event) {
  std::visit(InsertVisitor{run_id, seq, *m_statements}, event);
}

std::string eventProblem(const engine::Event& event) {
  const auto* artifact = std::get_if<engine::ArtifactEvent>(&event);
  if (!artifact) return {};
  std::int64_t expected = 1;
  for (std::int64_t dim : artifact->shape) {
    if (dim < 0) return "artifact '" + artifact->name + "': shape has a negative dimension";
    expected *= dim;
  }
  if (artifact->shape.empty() || expected != static_cast<std::int64_t>(artifact->data.size())) {
    return "artifact '" + artifact->name + "': shape " + intArrayJson(artifact->shape) +
           " does not match its " + std::to_string(artifact->data.size()) + " values";
  }
  if (!artifact->meta_json.empty() && !nlohmann::json::accept(artifact->meta_json)) {
    return "artifact '" + artifact->name + "': meta_json is not valid JSON";
  }
  return {};
}

}  // namespace studio::sessions

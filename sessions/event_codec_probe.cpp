// The probe's codec: one `probes` row per event (its scalars and averages) and one `probe_stats`
// row per head and query (docs/sessions.md).

#include <map>

#include "core/common/error.h"
#include "sessions/event_codec.h"
#include "sessions/event_tables.h"

namespace studio::sessions {

using engine::ProbeEvent;
using nlohmann::json;

void EventCodec<ProbeEvent>::insert(StatementCache& statements, std::int64_t run_id,
                                    std::int64_t seq, const ProbeEvent& e) {
  SqliteStatement& probe = statements.get(
      "INSERT INTO probes (run_id, seq, phase, step, deltas_json, epsilon, context_length, "
      "required_margin, num_layers, num_heads, mean_mass, mean_margin, mean_mass_per_layer_json) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  SqliteStatement& stat = statements.get(
      "INSERT INTO probe_stats (run_id, seq, head_slot, query_slot, layer, head, pos, lse, mass, "
      "margin, margin_best, max_target_logit, near_ties_json, dilution_bound_json, min_gap, "
      "target_keys, best_target_weight, set_bound_json) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const probe::ProbeResult& r = e.result;
  probe.bind(0, run_id).bind(1, seq).bind(2, engine::enumName(e.phase)).bind(3, e.step);
  probe.bind(4, doubleArrayJson(r.deltas)).bind(5, r.epsilon).bind(6, r.context_length);
  probe.bind(7, r.required_margin).bind(8, r.num_layers).bind(9, r.num_heads);
  probe.bind(10, r.mean_mass).bind(11, r.mean_margin);
  probe.bind(12, doubleArrayJson(r.mean_mass_per_layer)).run();
  for (std::size_t h = 0; h < r.heads.size(); ++h) {
    const probe::HeadStats& head = r.heads[h];
    for (std::size_t q = 0; q < head.queries.size(); ++q) {
      const probe::QueryStats& query = head.queries[q];
      stat.bind(0, run_id).bind(1, seq).bind(2, static_cast<std::int64_t>(h));
      stat.bind(3, static_cast<std::int64_t>(q)).bind(4, head.layer).bind(5, head.head);
      stat.bind(6, query.pos).bind(7, query.lse).bind(8, query.mass).bind(9, query.margin);
      stat.bind(10, query.margin_best).bind(11, query.max_target_logit);
      stat.bind(12, intArrayJson(query.near_ties));
      stat.bind(13, doubleArrayJson(query.dilution_bound)).bind(14, query.min_gap);
      stat.bind(15, query.target_keys).bind(16, query.best_target_weight);
      stat.bind(17, doubleArrayJson(query.set_bound)).run();
    }
  }
}

std::vector<std::pair<std::int64_t, ProbeEvent>> EventCodec<ProbeEvent>::load(
    SqliteDatabase& db, std::int64_t run_id) {
  std::vector<std::pair<std::int64_t, ProbeEvent>> probes;
  SqliteStatement rows(db,
                       "SELECT seq, phase, step, deltas_json, epsilon, context_length, "
                       "required_margin, num_layers, num_heads, mean_mass, mean_margin, "
                       "mean_mass_per_layer_json FROM probes WHERE run_id = ?1 ORDER BY seq");
  rows.bind(0, run_id);
  while (rows.step()) {
    ProbeEvent e;
    codec::readValue(rows, 1, "probes.phase", e.phase);
    e.step = rows.columnInt(2);
    probe::ProbeResult& r = e.result;
    r.deltas = parseDoubleArray(rows.columnText(3), "probes.deltas_json");
    r.epsilon = rows.columnDouble(4);
    r.context_length = rows.columnInt(5);
    r.required_margin = rows.columnDouble(6);
    r.num_layers = static_cast<int>(rows.columnInt(7));
    r.num_heads = static_cast<int>(rows.columnInt(8));
    r.mean_mass = rows.columnDouble(9);
    r.mean_margin = rows.columnDouble(10);
    r.mean_mass_per_layer = parseDoubleArray(rows.columnText(11), "probes.mean_mass_per_layer_json");
    probes.emplace_back(rows.columnInt(0), std::move(e));
  }
  if (probes.empty()) return probes;
  std::map<std::int64_t, probe::ProbeResult*> by_seq;
  for (auto& [seq, event] : probes) by_seq[seq] = &event.result;
  SqliteStatement stats(db,
                        "SELECT seq, head_slot, layer, head, pos, lse, mass, margin, "
                        "margin_best, max_target_logit, near_ties_json, dilution_bound_json, "
                        "min_gap, target_keys, best_target_weight, set_bound_json "
                        "FROM probe_stats WHERE run_id = ?1 "
                        "ORDER BY seq, head_slot, query_slot");
  stats.bind(0, run_id);
  std::int64_t current_seq = -1;
  std::int64_t current_slot = -1;
  probe::ProbeResult* result = nullptr;
  while (stats.step()) {
    const std::int64_t seq = stats.columnInt(0);
    const std::int64_t slot = stats.columnInt(1);
    if (seq != current_seq) {
      const auto found = by_seq.find(seq);
      // The foreign key to probes makes a missing parent impossible in an intact file.
      if (found == by_seq.end()) {
        throwError(ErrorKind::Session, db.path(), "probe_stats",
                   "row of run " + std::to_string(run_id) + " seq " + std::to_string(seq) +
                       " has no probes row");
      }
      result = found->second;
      current_seq = seq;
      current_slot = -1;
    }
    if (slot != current_slot) {
      probe::HeadStats head;
      head.layer = static_cast<int>(stats.columnInt(2));
      head.head = static_cast<int>(stats.columnInt(3));
      result->heads.push_back(std::move(head));
      current_slot = slot;
    }
    probe::QueryStats query;
    query.pos = stats.columnInt(4);
    query.lse = stats.columnDouble(5);
    query.mass = stats.columnDouble(6);
    query.margin = stats.columnDouble(7);
    query.margin_best = stats.columnDouble(8);
    query.max_target_logit = stats.columnDouble(9);
    query.near_ties = parseIntArray(stats.columnText(10), "probe_stats.near_ties_json");
    query.dilution_bound =
        parseDoubleArray(stats.columnText(11), "probe_stats.dilution_bound_json");
    query.min_gap = stats.columnDouble(12);
    query.target_keys = stats.columnInt(13);
    query.best_target_weight = stats.columnDouble(14);
    query.set_bound = parseDoubleArray(stats.columnText(15), "probe_stats.set_bound_json");
    result->heads.back().queries.push_back(std::move(query));
  }
  return probes;
}

json EventCodec<ProbeEvent>::toJson(const ProbeEvent& e) {
  const probe::ProbeResult& r = e.result;
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
                         {"min_gap", q.min_gap},
                         {"target_keys", q.target_keys},
                         {"best_target_weight", q.best_target_weight},
                         {"near_ties", q.near_ties},
                         {"dilution_bound", q.dilution_bound},
                         {"set_bound", q.set_bound}});
    }
    heads.push_back({{"layer", head.layer}, {"head", head.head}, {"queries", std::move(queries)}});
  }
  return {{"phase", engine::enumName(e.phase)},
          {"step", e.step},
          {"result",
           {{"deltas", r.deltas},
            {"epsilon", r.epsilon},
            {"context_length", r.context_length},
            {"required_margin", r.required_margin},
            {"num_layers", r.num_layers},
            {"num_heads", r.num_heads},
            {"heads", std::move(heads)},
            {"mean_mass", r.mean_mass},
            {"mean_margin", r.mean_margin},
            {"mean_mass_per_layer", r.mean_mass_per_layer}}}};
}

}  // namespace studio::sessions

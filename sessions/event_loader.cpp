#include "sessions/event_loader.h"

#include <algorithm>
#include <map>

#include "core/common/error.h"
#include "sessions/event_tables.h"
#include "sessions/sqlite_database.h"

namespace studio::sessions {

namespace {

using engine::Event;

// Runs `sql` (with ?1 = run_id, ordered by seq) and appends what `make(statement)` builds.
template <typename Make>
void loadTable(SqliteDatabase& db, std::int64_t run_id, const std::string& sql,
               std::vector<StoredEvent>& out, Make make) {
  SqliteStatement statement(db, sql);
  statement.bind(0, run_id);
  while (statement.step()) out.push_back({statement.columnInt(0), make(statement)});
}

std::string where(const char* columns, const char* table) {
  return std::string("SELECT seq, ") + columns + " FROM " + table +
         " WHERE run_id = ?1 ORDER BY seq";
}

void loadProbes(SqliteDatabase& db, std::int64_t run_id, std::vector<StoredEvent>& out) {
  std::vector<StoredEvent> probes;
  loadTable(db, run_id,
            where("phase, step, deltas_json, epsilon, context_length, required_margin, "
                  "num_layers, num_heads, mean_mass, mean_margin, mean_mass_per_layer_json",
                  "probes"),
            probes, [](const SqliteStatement& s) {
              engine::ProbeEvent e;
              e.phase = s.columnText(1);
              e.step = s.columnInt(2);
              probe::ProbeResult& r = e.result;
              r.deltas = parseDoubleArray(s.columnText(3), "probes.deltas_json");
              r.epsilon = s.columnDouble(4);
              r.context_length = s.columnInt(5);
              r.required_margin = s.columnDouble(6);
              r.num_layers = static_cast<int>(s.columnInt(7));
              r.num_heads = static_cast<int>(s.columnInt(8));
              r.mean_mass = s.columnDouble(9);
              r.mean_margin = s.columnDouble(10);
              r.mean_mass_per_layer =
                  parseDoubleArray(s.columnText(11), "probes.mean_mass_per_layer_json");
              return Event(std::move(e));
            });
  if (probes.empty()) return;
  std::map<std::int64_t, probe::ProbeResult*> by_seq;
  for (StoredEvent& stored : probes) {
    by_seq[stored.seq] = &std::get<engine::ProbeEvent>(stored.event).result;
  }
  SqliteStatement stats(db,
                        "SELECT seq, head_slot, layer, head, pos, lse, mass, margin, "
                        "margin_best, max_target_logit, near_ties_json, dilution_bound_json "
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
    result->heads.back().queries.push_back(std::move(query));
  }
  out.insert(out.end(), std::make_move_iterator(probes.begin()),
             std::make_move_iterator(probes.end()));
}

std::vector<float> floatsOf(std::string_view blob, const std::string& path) {
  if (blob.size() % sizeof(float) != 0) {
    throwError(ErrorKind::Session, path, "artifacts.data",
               "blob of " + std::to_string(blob.size()) + " bytes is not float32 values");
  }
  std::vector<float> values(blob.size() / sizeof(float));
  std::copy(blob.begin(), blob.end(), reinterpret_cast<char*>(values.data()));
  return values;
}

}  // namespace

std::vector<StoredEvent> loadRunEvents(SqliteDatabase& db, std::int64_t run_id,
                                       const std::vector<bool>& wanted) {
  auto want = [&](std::size_t index) { return index < wanted.size() && wanted[index]; };
  // One snapshot for all tables: a probe's stats must come from the same commit as its row.
  SqliteReadTransaction snapshot(db);
  std::vector<StoredEvent> out;
  if (want(0)) {
    loadTable(db, run_id, where("stage, fraction, done, total, eta_seconds", "progress"), out,
              [](const SqliteStatement& s) {
                engine::ProgressEvent e;
                e.stage = s.columnText(1);
                e.fraction = s.columnDouble(2);
                e.done = s.columnInt(3);
                e.total = s.columnInt(4);
                e.eta_seconds = s.columnDouble(5);
                return Event(std::move(e));
              });
  }
  if (want(1)) {
    loadTable(db, run_id,
              where("phase, step, loss, grad_norm, learning_rate, span_start, span_length, "
                    "wall_seconds",
                    "step_metrics"),
              out, [](const SqliteStatement& s) {
                engine::StepMetricEvent e;
                e.phase = s.columnText(1);
                e.step = s.columnInt(2);
                e.loss = s.columnDouble(3);
                e.grad_norm = s.columnDouble(4);
                e.learning_rate = s.columnDouble(5);
                e.span_start = s.columnInt(6);
                e.span_length = s.columnInt(7);
                e.wall_seconds = s.columnDouble(8);
                return Event(std::move(e));
              });
  }
  if (want(2)) loadProbes(db, run_id, out);
  if (want(3)) {
    loadTable(db, run_id, where("phase, branch, token_index, token_id, text, logprob", "tokens"),
              out, [](const SqliteStatement& s) {
                engine::TokenEvent e;
                e.phase = s.columnText(1);
                e.branch = static_cast<int>(s.columnInt(2));
                e.index = s.columnInt(3);
                e.token_id = s.columnInt(4);
                e.text = s.columnText(5);
                e.logprob = s.columnDouble(6);
                return Event(std::move(e));
              });
  }
  if (want(4)) {
    loadTable(db, run_id,
              where("layer, position, loss_initial, loss_before, loss_after", "fast_weight_losses"),
              out, [](const SqliteStatement& s) {
                engine::FastWeightLossEvent e;
                e.layer = static_cast<int>(s.columnInt(1));
                e.position = s.columnInt(2);
                e.loss_initial = s.columnDouble(3);
                e.loss_before = s.columnDouble(4);
                e.loss_after = s.columnDouble(5);
                return Event(std::move(e));
              });
  }
  if (want(5)) {
    loadTable(
        db, run_id,
        where("layer, position, loss, threshold, routed, cache_occupancy, evictions", "routing"),
        out, [](const SqliteStatement& s) {
          engine::RoutingEvent e;
          e.layer = static_cast<int>(s.columnInt(1));
          e.position = s.columnInt(2);
          e.loss = s.columnDouble(3);
          e.threshold = s.columnDouble(4);
          e.routed = s.columnInt(5) != 0;
          e.cache_occupancy = s.columnInt(6);
          e.evictions = s.columnInt(7);
          return Event(std::move(e));
        });
  }
  if (want(6)) {
    loadTable(db, run_id,
              where("step, position, reward_phi, reward_binary, reward, advantage", "rewards"), out,
              [](const SqliteStatement& s) {
                engine::RewardEvent e;
                e.step = s.columnInt(1);
                e.position = s.columnInt(2);
                e.reward_phi = s.columnDouble(3);
                e.reward_binary = s.columnDouble(4);
                e.reward = s.columnDouble(5);
                e.advantage = s.columnDouble(6);
                return Event(std::move(e));
              });
  }
  if (want(7)) {
    const std::string& path = db.path();
    loadTable(db, run_id, where("name, kind, shape_json, meta_json, data", "artifacts"), out,
              [&path](const SqliteStatement& s) {
                engine::ArtifactEvent e;
                e.name = s.columnText(1);
                e.kind = s.columnText(2);
                e.shape = parseIntArray(s.columnText(3), "artifacts.shape_json");
                e.meta_json = s.columnText(4);
                e.data = floatsOf(s.columnBlob(5), path);
                return Event(std::move(e));
              });
  }
  if (want(8)) {
    loadTable(db, run_id, where("level, message", "logs"), out, [](const SqliteStatement& s) {
      engine::LogEvent e;
      e.level = s.columnText(1);
      e.message = s.columnText(2);
      return Event(std::move(e));
    });
  }
  std::sort(out.begin(), out.end(),
            [](const StoredEvent& a, const StoredEvent& b) { return a.seq < b.seq; });
  return out;
}

}  // namespace studio::sessions

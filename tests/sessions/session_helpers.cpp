#include "session_helpers.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <variant>

#include "sessions/event_tables.h"
#include "support/test_paths.h"

namespace studio::sessions::testing {

namespace fs = std::filesystem;

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path);
}

bool fileExists(const std::string& path) {
  return fs::exists(path);
}

std::string copyFixture(const std::string& name, const TempDir& dir) {
  const std::string target = dir.file(name);
  fs::copy_file(fs::path(studio::test_paths::kFixturesDir) / "sessions" / name, target,
                fs::copy_options::overwrite_existing);
  return target;
}

engine::RunSpec sampleSpec(const std::string& method, const std::string& document_text) {
  engine::RunSpec spec;
  spec.model_path = "models/tiny";
  spec.document_source = "test/doc.txt";
  spec.document_text = document_text;
  spec.question = "Where is the needle?";
  spec.target_chars = {{3, 9}};
  spec.reference_answers = {"42"};
  spec.scorer = "exact";
  spec.method = method;
  spec.params = {{"steps", 4}, {"lr", 1e-3}};
  spec.seed = 11;
  spec.budget_flops = 2.5e12;
  return spec;
}

std::vector<engine::Event> oneEventOfEachKind() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<engine::Event> events;
  events.push_back(engine::ProgressEvent{"prefill", 0.25, 10, 40, -1});
  events.push_back(engine::StepMetricEvent{engine::StepPhase::Qttt, 3, 1.0 / 3.0, nan, 1e-6, 17, 32, 0.125});
  engine::ProbeEvent probe;
  probe.phase = engine::ProbePhase::QtttStep;
  probe.step = 3;
  probe.result.deltas = {0.5, 1, 2};
  probe.result.epsilon = 0.1;
  probe.result.context_length = 4096;
  probe.result.required_margin = 10.5;
  probe.result.num_layers = 2;
  probe.result.num_heads = 2;
  probe.result.mean_mass = 0.3;
  probe.result.mean_margin = -0.7;
  probe.result.mean_mass_per_layer = {0.2, nan};
  for (int layer = 0; layer < 2; ++layer) {
    for (int head = 0; head < 2; ++head) {
      probe::HeadStats stats;
      stats.layer = layer;
      stats.head = head;
      for (int q = 0; q < 2; ++q) {
        probe::QueryStats query;
        query.pos = 4090 + q;
        query.lse = 7.25 + layer;
        query.mass = 0.1 * (head + 1);
        query.margin = -1.5 + q;
        query.margin_best = 0.75;
        query.max_target_logit = (layer == 1 && head == 1) ? -inf : 3.5;
        query.near_ties = {q, 2 * q + 1, 9};
        query.dilution_bound = {0.5, 0.25, 1.0 / 7.0};
        query.min_gap = q == 0 ? -0.5 : inf;
        query.target_keys = 3 + head;
        query.best_target_weight = 0.05 * (layer + 1);
        query.set_bound = {0.75, 0.5, 3.0 / 7.0};
        stats.queries.push_back(query);
      }
      probe.result.heads.push_back(stats);
    }
  }
  events.push_back(probe);
  events.push_back(engine::TokenEvent{2, 1234, "caf\xc3\xa9 \"x\", y\n", -0.03125, engine::TokenPhase::Think, 1});
  events.push_back(engine::TokenEvent{3, 99, std::string("\xe2\x82"), -inf, engine::TokenPhase::Answer, 0});
  events.push_back(engine::FastWeightLossEvent{1, 77, 2.5, 2.25, 2.0});
  events.push_back(engine::RoutingEvent{0, 78, 3.5, 3.25, true, 512, 3, 70, 80, 3.0, true,
                                        0.25, {12, 40}, true, 1024, 1031});
  events.push_back(engine::RewardEvent{5, 200, 0.125, 1.0, 0.5625, -0.25});
  events.push_back(engine::ArtifactEvent{"heatmap L1H0",
                                         "heatmap",
                                         {2, 3},
                                         R"({"layer":1,"head":0,"rows":[0,2]})",
                                         {0.5f, -1.0f, 3.25f, 0.0f, 1e-8f, 65504.0f}});
  events.push_back(engine::LogEvent{"warning", "span clipped to the document's end"});
  events.push_back(engine::QueryDirectionEvent{3, {0.25, -0.125, 1.0 / 3.0}, 0.1527777777777778});
  return events;
}

namespace {

struct Describe {
  std::ostringstream& out;
  void num(const char* name, double value) const {
    out << name << '=' << formatDouble(value) << ';';
  }
  void num(const char* name, std::int64_t value) const { out << name << '=' << value << ';'; }
  void text(const char* name, const std::string& value) const {
    out << name << "=<" << value << ">;";
  }
  void operator()(const engine::ProgressEvent& e) const {
    out << "progress:";
    text("stage", e.stage);
    num("fraction", e.fraction);
    num("done", e.done);
    num("total", e.total);
    num("eta", e.eta_seconds);
  }
  void operator()(const engine::StepMetricEvent& e) const {
    out << "step_metric:";
    text("phase", engine::enumName(e.phase));
    num("step", e.step);
    num("loss", e.loss);
    num("grad_norm", e.grad_norm);
    num("lr", e.learning_rate);
    num("span_start", e.span_start);
    num("span_length", e.span_length);
    num("wall", e.wall_seconds);
  }
  void operator()(const engine::ProbeEvent& e) const {
    out << "probe:";
    text("phase", engine::enumName(e.phase));
    num("step", e.step);
    const probe::ProbeResult& r = e.result;
    out << "deltas=" << doubleArrayJson(r.deltas) << ';';
    num("epsilon", r.epsilon);
    num("T", r.context_length);
    num("required", r.required_margin);
    num("layers", std::int64_t{r.num_layers});
    num("heads", std::int64_t{r.num_heads});
    num("mean_mass", r.mean_mass);
    num("mean_margin", r.mean_margin);
    out << "per_layer=" << doubleArrayJson(r.mean_mass_per_layer) << ';';
    for (const probe::HeadStats& head : r.heads) {
      out << "[L" << head.layer << "H" << head.head;
      for (const probe::QueryStats& q : head.queries) {
        out << "{";
        num("pos", q.pos);
        num("lse", q.lse);
        num("mass", q.mass);
        num("margin", q.margin);
        num("best", q.margin_best);
        num("max_logit", q.max_target_logit);
        num("gap", q.min_gap);
        num("targets", q.target_keys);
        num("best_weight", q.best_target_weight);
        out << "ties=" << intArrayJson(q.near_ties)
            << ";bound=" << doubleArrayJson(q.dilution_bound)
            << ";set_bound=" << doubleArrayJson(q.set_bound) << "}";
      }
      out << "]";
    }
  }
  void operator()(const engine::TokenEvent& e) const {
    out << "token:";
    num("index", e.index);
    num("id", e.token_id);
    text("text", e.text);
    num("logprob", e.logprob);
    text("phase", engine::enumName(e.phase));
    num("branch", std::int64_t{e.branch});
  }
  void operator()(const engine::FastWeightLossEvent& e) const {
    out << "fast_weight_loss:";
    num("layer", std::int64_t{e.layer});
    num("position", e.position);
    num("initial", e.loss_initial);
    num("before", e.loss_before);
    num("after", e.loss_after);
  }
  void operator()(const engine::RoutingEvent& e) const {
    out << "routing:";
    num("layer", std::int64_t{e.layer});
    num("position", e.position);
    num("loss", e.loss);
    num("threshold", e.threshold);
    num("routed", std::int64_t{e.routed});
    num("occupancy", e.cache_occupancy);
    num("evictions", e.evictions);
    num("window_start", e.window_start);
    num("window_end", e.window_end);
    num("percentile", e.percentile);
    num("inserted", std::int64_t{e.inserted});
    num("alpha", e.alpha);
    for (const std::int64_t position : e.evicted) num("evicted", position);
    num("open", std::int64_t{e.open});
    num("document_start", e.document_start);
    num("document_end", e.document_end);
  }
  void operator()(const engine::RewardEvent& e) const {
    out << "reward:";
    num("step", e.step);
    num("position", e.position);
    num("phi", e.reward_phi);
    num("binary", e.reward_binary);
    num("reward", e.reward);
    num("advantage", e.advantage);
  }
  void operator()(const engine::ArtifactEvent& e) const {
    out << "artifact:";
    text("name", e.name);
    text("kind", e.kind);
    out << "shape=" << intArrayJson(e.shape) << ';';
    text("meta", e.meta_json);
    out << "data=";
    for (float value : e.data) out << formatDouble(value) << ',';
  }
  void operator()(const engine::QueryDirectionEvent& e) const {
    out << "query_direction:";
    num("step", e.step);
    for (const double cosine : e.layer_cosine) num("layer_cosine", cosine);
    num("mean_cosine", e.mean_cosine);
  }
  void operator()(const engine::LogEvent& e) const {
    out << "log:";
    text("level", e.level);
    text("message", e.message);
  }
};

}  // namespace

std::string describe(const engine::Event& event) {
  std::ostringstream out;
  std::visit(Describe{out}, event);
  return out.str();
}

engine::Event streamEvent(std::int64_t i) {
  if (i % 50 == 49) {
    engine::ProbeEvent probe;
    probe.phase = engine::ProbePhase::QtttStep;
    probe.step = i;
    probe.result.deltas = {0.5, 1, 2};
    probe.result.num_layers = 1;
    probe.result.num_heads = 2;
    probe.result.mean_mass = 1.0 / static_cast<double>(i + 1);
    for (int head = 0; head < 2; ++head) {
      probe::HeadStats stats;
      stats.head = head;
      probe::QueryStats query;
      query.pos = i;
      query.mass = 0.5 + head;
      query.near_ties = {1, 2, 3};
      query.dilution_bound = {0.5, 0.25, 0.125};
      stats.queries.push_back(query);
      probe.result.heads.push_back(stats);
    }
    return probe;
  }
  if (i % 2 == 0) {
    return engine::StepMetricEvent{engine::StepPhase::Qttt, i, 0.5 * static_cast<double>(i),  1.0, 1e-3,
                                   i,      8, 0.001 * static_cast<double>(i)};
  }
  return engine::TokenEvent{i, i % 50000, "t" + std::to_string(i), -0.25, engine::TokenPhase::Answer, 0};
}

std::string rawQuery(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + path);
  }
  sqlite3_stmt* statement = nullptr;
  std::string result;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    const std::string message = sqlite3_errmsg(db);
    sqlite3_close(db);
    throw std::runtime_error(sql + ": " + message);
  }
  if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0)) {
    result = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return result;
}

}  // namespace studio::sessions::testing

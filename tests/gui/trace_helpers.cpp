#include "gui/trace_helpers.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "views/run_traces.h"

namespace studio::gui_test {

probe::ProbeResult probe(double base, int layers, int heads, std::int64_t context) {
  probe::ProbeResult result;
  result.deltas = {0.5, 1.0, 2.0};
  result.epsilon = 0.1;
  result.context_length = context;
  result.required_margin = std::log((context - 1) * 0.9 / 0.1);
  result.num_layers = layers;
  result.num_heads = heads;
  double total = 0;
  for (int l = 0; l < layers; ++l) {
    double layer_total = 0;
    for (int h = 0; h < heads; ++h) {
      probe::HeadStats head;
      head.layer = l;
      head.head = h;
      probe::QueryStats query;
      query.pos = context - 1;
      query.mass = base + 0.01 * (l * heads + h);
      query.margin = std::log(query.mass / (1 - query.mass));
      const std::int64_t ties = 4 * (l + 1);
      query.near_ties = {ties, ties, ties};
      // Two target keys: the best holds 60 % of the set's mass, 0.5 nats above the best other key.
      query.target_keys = 2;
      query.best_target_weight = 0.6 * query.mass;
      query.min_gap = 0.5 - 0.1 * l;
      for (double delta : result.deltas) {
        query.dilution_bound.push_back(1.0 / (1.0 + ties * std::exp(-delta)));
        query.set_bound.push_back(2.0 / (2.0 + ties * std::exp(-delta)));
      }
      head.queries.push_back(query);
      result.heads.push_back(head);
      layer_total += query.mass;
      total += query.mass;
    }
    result.mean_mass_per_layer.push_back(layer_total / heads);
  }
  result.mean_mass = total / (layers * heads);
  result.mean_margin = std::log(result.mean_mass / (1 - result.mean_mass));
  return result;
}

namespace {

engine::RunSpec specOf(const std::string& method, nlohmann::json params) {
  engine::RunSpec spec;
  spec.model_path = "/models/qwen3-tiny";
  spec.document_source = "text";
  spec.document_text = "The code word is K7Q.";
  spec.question = "What is the code word?";
  spec.target_chars = {Span{17, 20}};
  spec.method = method;
  spec.params = std::move(params);
  return spec;
}

// Every event is appended here, out of line: where GCC 12 at -O3 inlines many push_backs of the
// event variant into one function, it reports their moves as maybe uninitialized (a false
// positive: each alternative is built whole).
[[gnu::noinline]] void record(SyntheticRun& run, engine::Event event) {
  run.events.push_back(std::move(event));
}

void answer(SyntheticRun& run, const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    record(run, engine::TokenEvent{static_cast<std::int64_t>(i), 60 + (int)i,
                                   std::string(1, text[i]), -0.5, engine::TokenPhase::Answer, 0});
  }
  run.result.answer = text;
  run.result.output = text;
}

}  // namespace

SyntheticRun inContextRun(std::int64_t context, double mass) {
  SyntheticRun run;
  run.spec = specOf("in_context", nlohmann::json::object());
  record(run, engine::ProgressEvent{"prefill", 1.0, context, context, 0});
  record(run, engine::ProbeEvent{engine::ProbePhase::Prefill, -1, probe(mass, 2, 4, context)});
  answer(run, "K7Q");
  run.result.status = engine::RunStatus::Completed;
  run.result.correct = true;
  run.result.target_mass = probe(mass, 2, 4, context).mean_mass;
  run.result.target_margin = probe(mass, 2, 4, context).mean_margin;
  run.result.prompt_tokens = context;
  run.result.flops.prefill = 2e9;
  run.result.wall_seconds = 0.5;
  return run;
}

SyntheticRun qtttRun(int steps, std::int64_t context) {
  SyntheticRun run;
  run.spec = specOf("qttt", {{"steps", steps}, {"lr", 0.001}, {"span", 16}});
  record(run, engine::ProbeEvent{engine::ProbePhase::Prefill, -1, probe(0.05, 2, 4, context)});
  for (int s = 0; s < steps; ++s) {
    engine::StepMetricEvent metric;
    metric.phase = engine::StepPhase::Qttt;
    metric.step = s;
    metric.loss = 3.0 / (s + 1);
    metric.grad_norm = 1.0;
    metric.learning_rate = 0.001;
    metric.span_start = 10 * s;
    metric.span_length = 16;
    record(run, metric);
    record(run, engine::ProbeEvent{engine::ProbePhase::QtttStep, s,
                                   probe(0.1 + 0.1 * s, 2, 4, context)});
    record(run, engine::QueryDirectionEvent{s, {0.02 * s, 0.04 * s}, 0.03 * s});
    record(run,
           engine::ProgressEvent{"qttt", (s + 1.0) / steps, s + 1, steps, 2.0 * (steps - s - 1)});
  }
  answer(run, "K7Q");
  const probe::ProbeResult last = probe(0.1 + 0.1 * (steps - 1), 2, 4, context);
  run.result.status = engine::RunStatus::Completed;
  run.result.correct = true;
  run.result.target_mass = last.mean_mass;
  run.result.target_margin = last.mean_margin;
  run.result.prompt_tokens = context;
  run.result.flops.prefill = 2e9;
  run.result.flops.extra = 1e9;
  run.result.wall_seconds = 1.5;
  return run;
}

std::string tempPath(const std::string& name) {
  static int counter = 0;
  return (std::filesystem::temp_directory_path() /
          ("studio-gui-test-" + std::to_string(getpid()) + "-" + std::to_string(++counter) + "-" +
           name))
      .string();
}

void feed(views::RunTraces& traces, std::int64_t id, const SyntheticRun& run) {
  traces.runStarted(id, run.spec);
  for (const engine::Event& event : run.events) traces.addEvent(id, event);
  traces.runFinished(id, run.result);
}

}  // namespace studio::gui_test

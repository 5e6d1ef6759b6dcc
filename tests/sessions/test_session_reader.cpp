// Listing runs, reading each of many when some are damaged, and aligning the runs of one document
// for comparison.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/common/error.h"
#include "session_helpers.h"
#include "sessions/readable_runs.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"

using namespace studio;
using namespace studio::sessions;
using namespace studio::sessions::testing;

namespace {

engine::StepMetricEvent metric(engine::StepPhase phase, std::int64_t step, double loss) {
  engine::StepMetricEvent event;
  event.phase = phase;
  event.step = step;
  event.loss = loss;
  event.grad_norm = 10 * loss;
  event.learning_rate = 1e-3;
  return event;
}

engine::ProbeEvent probeAt(std::int64_t step, double mass, double margin) {
  engine::ProbeEvent event;
  event.phase = engine::ProbePhase::QtttStep;
  event.step = step;
  event.result.mean_mass = mass;
  event.result.mean_margin = margin;
  return event;
}

}  // namespace

TEST_CASE("the run list shows method, status, answer, score, mass, margin, FLOPs and wall time",
          "[session]") {
  TempDir dir;
  SessionStore store(dir.file("list.sqlite"));
  const std::int64_t a = store.beginRun(sampleSpec("in_context", "doc one"), "{}");
  const std::int64_t b = store.beginRun(sampleSpec("qttt", "doc one"), "{}");
  engine::RunResult result;
  result.status = engine::RunStatus::Completed;
  result.answer = "42";
  result.score = 0.5;
  result.correct = false;
  result.target_mass = 0.125;
  result.target_margin = -2.0;
  result.flops = {1e12, 2e11};
  result.wall_seconds = 3.25;
  store.finishRun(b, result);

  const auto runs = SessionReader(store).listRuns();
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].id == a);
  CHECK(runs[0].method == "in_context");
  CHECK(runs[0].status == engine::RunStatus::Running);  // this store is its live writer
  CHECK_FALSE(runs[0].score);
  CHECK(runs[1].method == "qttt");
  CHECK(runs[1].answer == "42");
  CHECK(runs[1].score == 0.5);
  CHECK(runs[1].correct == false);
  CHECK(runs[1].target_mass == 0.125);
  CHECK(runs[1].target_margin == -2.0);
  CHECK(runs[1].flops_prefill == 1e12);
  CHECK(runs[1].flops_extra == 2e11);
  CHECK(runs[1].wall_seconds == 3.25);
  CHECK(runs[0].document_id == runs[1].document_id);
  CHECK_THROWS_WITH(SessionReader(store).run(99), Catch::Contains("no run 99"));
}

TEST_CASE("the runs of one document line up by step, with gaps where a run has no value",
          "[session]") {
  TempDir dir;
  SessionStore store(dir.file("compare.sqlite"));
  const std::int64_t a = store.beginRun(sampleSpec("qttt", "shared document"), "{}");
  const std::int64_t b = store.beginRun(sampleSpec("qttt", "shared document"), "{}");
  const std::int64_t c = store.beginRun(sampleSpec("in_context", "shared document"), "{}");
  const std::int64_t other = store.beginRun(sampleSpec("qttt", "another document"), "{}");
  store.appendEvents(a, {metric(engine::StepPhase::Qttt, 0, 3.0), metric(engine::StepPhase::Qttt, 1, 2.0), metric(engine::StepPhase::Qttt, 2, 1.5),
                         probeAt(2, 0.25, -1.0)});
  store.appendEvents(b, {metric(engine::StepPhase::Qttt, 1, 2.5), metric(engine::StepPhase::Qttt, 2, 2.25), metric(engine::StepPhase::Qttt, 3, 2.0),
                         metric(engine::StepPhase::Qttt, 3, 1.75)});  // a second value at step 3: the last wins
  store.appendEvents(c, {engine::TokenEvent{0, 7, "x", -0.5, engine::TokenPhase::Answer, 0}});
  store.appendEvents(other, {metric(engine::StepPhase::Qttt, 9, 9.0), metric(engine::StepPhase::Train, 0, 1.0)});

  SessionReader reader(store);
  const std::int64_t document = *reader.run(a).document_id;
  CHECK(reader.run(other).document_id != document);
  const DocumentComparison comparison = reader.compareDocumentRuns(document);
  CHECK(comparison.document_id == document);
  REQUIRE(comparison.runs.size() == 3);
  CHECK(comparison.runs[0].id == a);
  CHECK(comparison.runs[1].id == b);
  CHECK(comparison.runs[2].id == c);

  auto find = [&](const std::string& kind, const std::string& phase, const std::string& metric) {
    for (const AlignedSeries& series : comparison.series) {
      if (series.kind == kind && series.phase == phase && series.metric == metric) return series;
    }
    FAIL("no series " << kind << "/" << phase << "/" << metric);
    return AlignedSeries{};
  };
  // 3 step-metric series (loss, grad_norm, learning_rate) of phase qttt, 2 probe series; the
  // other document's "train" phase is not there.
  CHECK(comparison.series.size() == 5);
  const AlignedSeries loss = find("step_metric", "qttt", "loss");
  CHECK(loss.steps == std::vector<std::int64_t>{0, 1, 2, 3});
  REQUIRE(loss.values.size() == 3);
  CHECK(loss.values[0][0] == 3.0);
  CHECK(loss.values[0][2] == 1.5);
  CHECK(std::isnan(loss.values[0][3]));
  CHECK(std::isnan(loss.values[1][0]));
  CHECK(loss.values[1][3] == 1.75);
  for (double value : loss.values[2]) CHECK(std::isnan(value));
  CHECK(find("step_metric", "qttt", "grad_norm").values[1][1] == 25.0);
  const AlignedSeries mass = find("probe", "qttt_step", "mean_mass");
  CHECK(mass.steps == std::vector<std::int64_t>{2});
  CHECK(mass.values[0][0] == 0.25);
  CHECK(std::isnan(mass.values[1][0]));
  CHECK(find("probe", "qttt_step", "mean_margin").values[0][0] == -1.0);

  const DocumentComparison empty = reader.compareDocumentRuns(document + 100);
  CHECK(empty.runs.empty());
  CHECK(empty.series.empty());
}

TEST_CASE("readEachRun sets aside a run whose read fails and lets the use's errors through",
          "[session]") {
  std::vector<RunSummary> runs(4);
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i].id = static_cast<std::int64_t>(i + 1);
  const auto read = [](const RunSummary& run) {
    if (run.id == 2 || run.id == 4) {
      throwError(ErrorKind::Session, "s.sqlite", "runs[" + std::to_string(run.id) + "].spec_json",
                 "bad");
    }
    return run.id * 10;
  };
  std::vector<std::int64_t> used;
  const std::vector<UnreadableRun> unreadable = readEachRun(
      runs, read, [&](const RunSummary&, std::int64_t value) { used.push_back(value); });
  CHECK(used == std::vector<std::int64_t>{10, 30});
  REQUIRE(unreadable.size() == 2);
  CHECK(unreadable[0].id == 2);
  CHECK(unreadable[0].error == "s.sqlite: runs[2].spec_json: bad");
  CHECK(unreadable[1].id == 4);
  CHECK(unreadableRunsReport(unreadable) ==
        "cannot read run 2, left out: s.sqlite: runs[2].spec_json: bad\n"
        "cannot read run 4, left out: s.sqlite: runs[4].spec_json: bad\n");
  CHECK(unreadableRunsReport({}).empty());

  // Writing what was read is not reading the run: its error is the caller's.
  CHECK_THROWS_WITH(readEachRun(runs, read,
                                [](const RunSummary&, std::int64_t) {
                                  throwError(ErrorKind::Io, "out.json", "", "disk full");
                                }),
                    "out.json: disk full");
}

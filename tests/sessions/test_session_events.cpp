// Every event kind, documents, models, specs and results survive a round trip through the file.
#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "session_helpers.h"
#include "sessions/content_hash.h"
#include "sessions/event_tables.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"

using namespace studio;
using namespace studio::sessions;
using namespace studio::sessions::testing;

TEST_CASE("content hashes are XXH3-128 in hex", "[session]") {
  // The reference value of XXH3_128bits on empty input.
  CHECK(contentHash("") == "99aa06d3014798d86001c324468d497f");
  CHECK(contentHash("a").size() == 32);
  CHECK(contentHash("a") != contentHash("b"));
}

TEST_CASE("every event kind round-trips exactly, NaN and infinities included", "[session]") {
  TempDir dir;
  const std::string path = dir.file("events.sqlite");
  const std::vector<engine::Event> events = oneEventOfEachKind();
  std::int64_t run = 0;
  {
    SessionStore store(path);
    run = store.beginRun(sampleSpec("qttt", "the document"), R"({"hidden_size": 8})");
    store.appendEvents(run, events);
  }
  // Read back through a fresh connection, so nothing comes from a cache.
  SessionStore store(path);
  SessionReader reader(store);
  const auto loaded = reader.loadEvents(run);
  REQUIRE(loaded.size() == events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    INFO("event " << i);
    CHECK(loaded[i].seq == static_cast<std::int64_t>(i));
    CHECK(describe(loaded[i].event) == describe(events[i]));
  }
  // Every kind has its table and was counted.
  for (const auto& [kind, count] : reader.eventCounts(run)) {
    INFO(kind);
    CHECK(count == (kind == "token" ? 2 : 1));
  }
}

TEST_CASE("events can be loaded by kind, still in seq order", "[session]") {
  TempDir dir;
  SessionStore store(dir.file("kinds.sqlite"));
  const std::int64_t run = store.beginRun(sampleSpec("qttt", "doc"), "{}");
  std::vector<engine::Event> events;
  for (int i = 0; i < 200; ++i) events.push_back(streamEvent(i));
  store.appendEvents(run, events);
  SessionReader reader(store);
  const auto probes = reader.loadEvents(run, {"probe"});
  REQUIRE(probes.size() == 4);
  CHECK(probes[0].seq == 49);
  CHECK(probes[3].seq == 199);
  const auto mixed = reader.loadEvents(run, {"token", "probe"});
  CHECK(mixed.size() == 100);
  for (std::size_t i = 1; i < mixed.size(); ++i) CHECK(mixed[i - 1].seq < mixed[i].seq);
  CHECK_THROWS_WITH(
      reader.loadEvents(run, {"telepathy"}),
      Catch::Contains("unknown event kind 'telepathy'") && Catch::Contains("step_metric"));
}

TEST_CASE("seq numbers continue across appends and reopenings", "[session]") {
  TempDir dir;
  const std::string path = dir.file("seq.sqlite");
  std::int64_t run = 0;
  {
    SessionStore store(path);
    run = store.beginRun(sampleSpec("qttt", "doc"), "{}");
    store.appendEvents(run, {streamEvent(0), streamEvent(1)});
    store.appendEvents(run, {streamEvent(2)});
  }
  SessionStore store(path);
  store.appendEvents(run, {streamEvent(3), streamEvent(49)});
  const auto events = SessionReader(store).loadEvents(run);
  REQUIRE(events.size() == 5);
  for (std::size_t i = 0; i < events.size(); ++i) CHECK(events[i].seq == std::int64_t(i));
  CHECK(describe(events[4].event) == describe(streamEvent(49)));
}

TEST_CASE("bad events and unknown runs are refused with a message, nothing written", "[session]") {
  TempDir dir;
  SessionStore store(dir.file("bad.sqlite"));
  const std::int64_t run = store.beginRun(sampleSpec("qttt", "doc"), "{}");
  engine::ArtifactEvent wrong_shape{"heatmap L0H0", "heatmap", {2, 2}, "{}", {1, 2, 3}};
  CHECK_THROWS_WITH(store.appendEvents(run, {streamEvent(0), wrong_shape}),
                    Catch::Contains("heatmap L0H0") && Catch::Contains("[2,2]"));
  engine::ArtifactEvent bad_meta{"row", "attention_row", {1}, "{not json", {1}};
  CHECK_THROWS_WITH(store.appendEvents(run, {bad_meta}), Catch::Contains("meta_json"));
  CHECK_THROWS_WITH(store.appendEvents(run + 100, {streamEvent(0)}),
                    Catch::Contains("run " + std::to_string(run + 100) + " does not exist"));
  CHECK(SessionReader(store).loadEvents(run).empty());
  CHECK_THROWS_WITH(SessionReader(store).loadEvents(run + 100),
                    Catch::Contains("no run " + std::to_string(run + 100)));
}

TEST_CASE("documents and models are stored once per content", "[session]") {
  TempDir dir;
  SessionStore store(dir.file("dedupe.sqlite"));
  const std::int64_t a = store.addDocument("a.txt", "same text");
  CHECK(store.addDocument("b.txt", "same text") == a);
  CHECK(store.addDocument("c.txt", "other text") != a);
  const std::int64_t m = store.addModel("models/tiny", R"({"b": 1, "a": [1, 2]})");
  // The same configuration, written differently, is the same model.
  CHECK(store.addModel("models/tiny", R"({"a":[1,2],"b":1})") == m);
  CHECK(store.addModel("models/other", R"({"a":[1,2],"b":1})") != m);
  CHECK(store.addModel("models/tiny", R"({"a":[1,2],"b":2})") != m);
  CHECK_THROWS_WITH(store.addModel("models/tiny", "{oops"), Catch::Contains("model config"));

  SessionReader reader(store);
  const DocumentInfo document = reader.document(a);
  CHECK(document.text == "same text");
  CHECK(document.source == "a.txt");
  CHECK(document.byte_length == 9);
  CHECK(document.content_hash == contentHash("same text"));
  CHECK(reader.listDocuments().size() == 2);
  CHECK(reader.listModels().size() == 3);
  CHECK_THROWS_WITH(reader.document(99), Catch::Contains("no document 99"));
}

TEST_CASE("a run's spec and result round-trip and a run can only finish once it exists",
          "[session]") {
  TempDir dir;
  SessionStore store(dir.file("runs.sqlite"));
  const engine::RunSpec spec = sampleSpec("qttt", "The answer is 42.");
  const std::int64_t run = store.beginRun(spec, R"({"hidden_size": 8})");
  SessionReader reader(store);
  CHECK(reader.loadSpec(run).toJson() == spec.toJson());
  CHECK(reader.run(run).status == engine::RunStatus::Running);
  CHECK(reader.loadResult(run).status == engine::RunStatus::Running);

  engine::RunResult result;
  result.status = engine::RunStatus::Completed;
  result.output = "<think>hmm</think> 42";
  result.answer = "42";
  result.score = 1.0;
  result.correct = true;
  result.flops = {1.25e12, 3.5e11};
  result.wall_seconds = 12.5;
  result.prompt_tokens = 4096;
  result.generated_tokens = 17;
  result.target_mass = 0.375;
  result.target_margin = -0.5;
  result.details = {{"votes", {{"42", 3}, {"41", 1}}}};
  result.provenance = {{"studio_version", "0.1.0"}, {"commit", "abc123"}, {"device", "cuda:1"},
                       {"dtype", "bf16"}, {"config_hash", "00ff"}, {"weights_header_hash", "none"}};
  store.finishRun(run, result);

  const RunSummary summary = reader.run(run);
  CHECK(summary.status == engine::RunStatus::Completed);
  CHECK_FALSE(summary.ended_at.empty());
  CHECK(summary.started_at <= summary.ended_at);
  CHECK(summary.document_source == "test/doc.txt");
  CHECK(summary.model_path == "models/tiny");
  CHECK(reader.loadResult(run).toJson() == result.toJson());

  engine::RunResult still_running;
  still_running.status = engine::RunStatus::Running;
  CHECK_THROWS_WITH(store.finishRun(run, still_running), Catch::Contains("'running'"));
  CHECK_THROWS_WITH(store.finishRun(run + 7, result),
                    Catch::Contains("run " + std::to_string(run + 7) + " does not exist"));
}

TEST_CASE("small JSON arrays keep NaN and infinities apart and refuse garbage", "[session]") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::string text =
      doubleArrayJson({0.1, -inf, inf, std::numeric_limits<double>::quiet_NaN(), 1e-300});
  CHECK(text == "[0.1,-1e999,1e999,null,1e-300]");
  const auto back = parseDoubleArray(text, "x");
  REQUIRE(back.size() == 5);
  CHECK(back[0] == 0.1);
  CHECK(back[1] == -inf);
  CHECK(back[2] == inf);
  CHECK(std::isnan(back[3]));
  CHECK(back[4] == 1e-300);
  CHECK(parseIntArray(" [ 1, -2 ,3 ] ", "y") == std::vector<std::int64_t>{1, -2, 3});
  CHECK(parseIntArray("[]", "y").empty());
  CHECK_THROWS_WITH(parseIntArray("[1,2.5]", "probe_stats.near_ties_json"),
                    Catch::Contains("probe_stats.near_ties_json") && Catch::Contains("2.5"));
  CHECK_THROWS_WITH(parseDoubleArray("1,2", "probes.deltas_json"),
                    Catch::Contains("expected a JSON array"));
}

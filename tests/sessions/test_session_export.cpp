// Exports: the library functions, and `studio-cli export` run as a process.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/common/error.h"
#include "session_helpers.h"
#include "sessions/sample_log.h"
#include "sessions/session_export.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"
#include "support/session_damage.h"
#include "support/test_paths.h"

using namespace studio;
using namespace studio::sessions;
using namespace studio::sessions::testing;

namespace {

// A small session: two runs of one document, every event kind in the first.
std::string makeSmallSession(const TempDir& dir) {
  const std::string path = dir.file("small.sqlite");
  SessionStore store(path);
  const std::int64_t first = store.beginRun(sampleSpec("qttt", "doc, with \"quotes\"\n"), "{}");
  store.appendEvents(first, oneEventOfEachKind());
  engine::RunResult result;
  result.answer = "42";
  result.score = 1.0;
  store.finishRun(first, result);
  const std::int64_t second =
      store.beginRun(sampleSpec("in_context", "doc, with \"quotes\"\n"), "{}");
  store.appendEvents(second, {streamEvent(0), streamEvent(1)});
  return path;
}

// makeSmallSession with run 1's spec_json changed by hand so that it no longer reads as a spec.
std::string makeSessionWithDamagedRun(const TempDir& dir) {
  const std::string path = makeSmallSession(dir);
  studio::test::makeRunUnreadable(path, 1);
  return path;
}

// Splits CSV text into records of fields (RFC 4180: quotes, doubled quotes, CRLF).
std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
      ++i;
    } else {
      field += c;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  FAIL("no column " << name);
  return 0;
}

std::string cliPath() {
  return std::string(studio::test_paths::kBinaryDir) + "/../app/studio-cli";
}

// Runs studio-cli with `arguments`; returns its exit code, stdout+stderr in `output`.
int runCli(const std::string& arguments, std::string& output) {
  const std::string command = "'" + cliPath() + "' " + arguments + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  output.clear();
  std::size_t bytes = 0;
  while ((bytes = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, bytes);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("the JSON export holds runs with specs, results and every event", "[session]") {
  TempDir dir;
  const std::string session = makeSmallSession(dir);
  OpenOptions read_only;
  read_only.access = OpenOptions::Access::ReadOnly;
  SessionStore store(session, read_only);
  const std::string out = dir.file("all.json");
  const ExportSummary summary = exportSessionJson(store, std::nullopt, out);
  CHECK(summary.runs == 2);
  CHECK(summary.events == oneEventOfEachKind().size() + 2);
  CHECK_FALSE(fileExists(out + ".partial"));

  const nlohmann::json json = nlohmann::json::parse(readBytes(out));
  CHECK(json["format"] == "ttt-studio-session-export");
  REQUIRE(json["runs"].size() == 2);
  CHECK(json["unreadable_runs"] == nlohmann::json::array());  // present, and empty
  const nlohmann::json& run = json["runs"][0];
  CHECK(run["method"] == "qttt");
  CHECK(run["status"] == "completed");
  CHECK(run["spec"]["document_text"] == "doc, with \"quotes\"\n");
  CHECK(run["result"]["answer"] == "42");
  CHECK(run["event_counts"]["probe"] == 1);
  REQUIRE(run["events"].size() == oneEventOfEachKind().size());
  CHECK(run["events"][0]["kind"] == "progress");
  CHECK(run["events"][2]["result"]["heads"].size() == 4);
  CHECK(run["events"][2]["result"]["heads"][3]["queries"][0]["max_target_logit"].is_null());
  CHECK(run["events"][3]["text"] == "caf\xc3\xa9 \"x\", y\n");
  CHECK(run["events"][4]["text"] == "\xef\xbf\xbd");  // an incomplete UTF-8 piece: U+FFFD
  CHECK(run["events"][8]["data"].size() == 6);
  CHECK(run["events"][8]["meta"]["layer"] == 1);
  CHECK(json["documents"].size() == 1);
  CHECK(json["models"].size() == 1);

  const ExportSummary one = exportSessionJson(store, 2, dir.file("one.json"));
  CHECK(one.runs == 1);
  CHECK(nlohmann::json::parse(readBytes(dir.file("one.json")))["runs"][0]["id"] == 2);
  CHECK_THROWS_WITH(exportSessionJson(store, 9, dir.file("none.json")),
                    Catch::Contains("no run 9"));
  CHECK_FALSE(fileExists(dir.file("none.json")));
}

TEST_CASE("the CSV export writes a runs table and one typed table per kind beside it",
          "[session]") {
  TempDir dir;
  const std::string session = makeSmallSession(dir);
  OpenOptions read_only;
  read_only.access = OpenOptions::Access::ReadOnly;
  SessionStore store(session, read_only);
  const std::string out = dir.file("run1.csv");
  const ExportSummary summary = exportSessionCsv(store, 1, out);
  CHECK(summary.runs == 1);
  CHECK(summary.events == oneEventOfEachKind().size());
  CHECK(summary.files.size() == 14);  // runs, documents, models, 10 event tables, probe_stats
  CHECK(csvSiblingPath(out, "tokens") == dir.file("run1.tokens.csv"));

  const auto runs = parseCsv(readBytes(out));
  REQUIRE(runs.size() == 2);
  const auto& header = runs[0];
  CHECK(runs[1][column(header, "id")] == "1");
  CHECK(runs[1][column(header, "method")] == "qttt");
  CHECK(runs[1][column(header, "status")] == "completed");
  CHECK(runs[1][column(header, "answer")] == "42");
  CHECK(runs[1][column(header, "score")] == "1");
  CHECK(runs[1][column(header, "document_source")] == "test/doc.txt");
  CHECK(nlohmann::json::parse(runs[1][column(header, "spec_json")])["method"] == "qttt");

  const auto tokens = parseCsv(readBytes(dir.file("run1.tokens.csv")));
  REQUIRE(tokens.size() == 3);
  CHECK(tokens[0] == std::vector<std::string>{"run_id", "seq", "phase", "branch", "token_index",
                                              "token_id", "text", "logprob"});
  CHECK(tokens[1][6] == "caf\xc3\xa9 \"x\", y\n");
  CHECK(tokens[2][7] == "-inf");
  const auto stats = parseCsv(readBytes(dir.file("run1.probe_stats.csv")));
  CHECK(stats.size() == 1 + 8);  // 4 heads x 2 queries
  CHECK(stats[1][column(stats[0], "near_ties_json")] == "[0,1,9]");
  const auto directions = parseCsv(readBytes(dir.file("run1.query_directions.csv")));
  REQUIRE(directions.size() == 2);
  CHECK(directions[1][column(directions[0], "step")] == "3");
  CHECK(nlohmann::json::parse(directions[1][column(directions[0], "layer_cosine_json")]) ==
        nlohmann::json::parse("[0.25,-0.125,0.3333333333333333]"));
  const auto metrics = parseCsv(readBytes(dir.file("run1.step_metrics.csv")));
  REQUIRE(metrics.size() == 2);
  CHECK(metrics[1][column(metrics[0], "grad_norm")] == "");  // NaN is stored as NULL
  CHECK(metrics[1][column(metrics[0], "loss")] == "0.3333333333333333");
  const auto artifacts = parseCsv(readBytes(dir.file("run1.artifacts.csv")));
  REQUIRE(artifacts.size() == 2);
  CHECK(artifacts[1][column(artifacts[0], "data")] == "[0.5,-1,3.25,0,9.99999993922529e-09,65504]");
  CHECK(parseCsv(readBytes(dir.file("run1.routing.csv"))).size() == 2);

  const ExportSummary all = exportSessionCsv(store, std::nullopt, dir.file("all.csv"));
  CHECK(all.runs == 2);
  CHECK(parseCsv(readBytes(dir.file("all.csv"))).size() == 3);
  CHECK(parseCsv(readBytes(dir.file("all.tokens.csv"))).size() == 1 + 2 + 1);
  CHECK_THROWS_AS(exportSessionCsv(store, std::nullopt, dir.file("missing/dir/x.csv")), Error);
}

TEST_CASE("studio-cli export writes JSON and CSV and refuses bad arguments", "[session]") {
  REQUIRE(fileExists(cliPath()));  // build the studio-cli target before the tests
  TempDir dir;
  const std::string session = makeSmallSession(dir);
  const std::string before = readBytes(session);
  std::string output;

  const std::string json_out = dir.file("out.json");
  REQUIRE(runCli("export --session '" + session + "' --all --format json --out '" + json_out + "'",
                 output) == 0);
  CHECK(output.find("exported 2 run(s)") != std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(readBytes(json_out));
  CHECK(json["runs"].size() == 2);
  CHECK(json["runs"][1]["events"].size() == 2);

  const std::string csv_out = dir.file("run.csv");
  REQUIRE(runCli("export --session '" + session + "' --run 2 --format csv --out '" + csv_out + "'",
                 output) == 0);
  const auto runs = parseCsv(readBytes(csv_out));
  REQUIRE(runs.size() == 2);
  CHECK(runs[0][0] == "id");
  CHECK(runs[1][0] == "2");
  CHECK(parseCsv(readBytes(dir.file("run.step_metrics.csv"))).size() == 2);
  CHECK(parseCsv(readBytes(dir.file("run.tokens.csv"))).size() == 2);
  // Exporting never changes the session.
  CHECK(readBytes(session) == before);

  CHECK(runCli("export --session '" + session + "' --format json --out x.json", output) == 2);
  CHECK(output.find("--run/--all") != std::string::npos);
  CHECK(runCli("export --session '" + session + "' --run 1 --all --out x.json", output) == 2);
  CHECK(runCli("export --session '" + session + "' --all --format xml --out x.xml", output) == 2);
  CHECK(runCli("export --session '" + dir.file("absent.sqlite") + "' --all --out '" +
                   dir.file("a.json") + "'",
               output) == 2);
  CHECK(output.find("absent.sqlite: no such session file") != std::string::npos);
  CHECK(runCli("export --session '" + session + "' --run 77 --out '" + dir.file("b.json") + "'",
               output) == 2);
  CHECK(output.find("no run 77") != std::string::npos);
}

TEST_CASE("an export of all runs leaves out a run it cannot read and names it", "[session]") {
  TempDir dir;
  OpenOptions read_only;
  read_only.access = OpenOptions::Access::ReadOnly;
  SessionStore store(makeSessionWithDamagedRun(dir), read_only);

  SECTION("json: the readable runs, and the damaged one under unreadable_runs") {
    const std::string out = dir.file("all.json");
    const ExportSummary summary = exportSessionJson(store, std::nullopt, out);
    CHECK(summary.runs == 1);
    CHECK(summary.events == 2);  // run 2's; none of run 1's
    REQUIRE(summary.unreadable.size() == 1);
    CHECK(summary.unreadable[0].id == 1);
    CHECK_THAT(summary.unreadable[0].error, Catch::Contains("runs[1].spec_json"));
    const nlohmann::json json = nlohmann::json::parse(readBytes(out));
    REQUIRE(json["runs"].size() == 1);
    CHECK(json["runs"][0]["id"] == 2);
    REQUIRE(json["unreadable_runs"].size() == 1);
    CHECK(json["unreadable_runs"][0]["id"] == 1);
    CHECK_THAT(json["unreadable_runs"][0]["error"].get<std::string>(),
               Catch::Contains("runs[1].spec_json"));
    CHECK(json["documents"].size() == 1);  // still listed: run 1's is run 2's too
  }
  SECTION("json: the damaged run asked for by itself is an error, and no file is written") {
    CHECK_THROWS_WITH(exportSessionJson(store, 1, dir.file("one.json")),
                      Catch::Contains("runs[1].spec_json"));
    CHECK_FALSE(fileExists(dir.file("one.json")));
    CHECK_FALSE(fileExists(dir.file("one.json.partial")));
  }
  SECTION("samples: one whole line per readable run") {
    const std::string out = dir.file("samples.jsonl");
    const ExportSummary summary = writeSampleLog(store, std::nullopt, out);
    CHECK(summary.runs == 1);
    REQUIRE(summary.unreadable.size() == 1);
    CHECK(summary.unreadable[0].id == 1);
    const std::string text = readBytes(out);
    REQUIRE(std::count(text.begin(), text.end(), '\n') == 1);
    CHECK(nlohmann::json::parse(text)["run_id"] == 2);
    CHECK_THROWS_WITH(writeSampleLog(store, 1, dir.file("one.jsonl")),
                      Catch::Contains("runs[1].spec_json"));
    CHECK_FALSE(fileExists(dir.file("one.jsonl")));
  }
  SECTION("csv: the tables as stored, so the damaged run is there too") {
    const ExportSummary summary = exportSessionCsv(store, std::nullopt, dir.file("all.csv"));
    CHECK(summary.runs == 2);
    CHECK(summary.unreadable.empty());
    const auto runs = parseCsv(readBytes(dir.file("all.csv")));
    REQUIRE(runs.size() == 3);
    CHECK(nlohmann::json::parse(runs[1][column(runs[0], "spec_json")])["method"] == 5);
  }
}

TEST_CASE("studio-cli export --all exports the readable runs and says which it left out",
          "[session]") {
  TempDir dir;
  const std::string session = makeSessionWithDamagedRun(dir);
  std::string output;
  const std::string json_out = dir.file("out.json");
  REQUIRE(runCli("export --session '" + session + "' --all --out '" + json_out + "'", output) == 0);
  CHECK_THAT(output, Catch::Contains("cannot read run 1, left out: ") &&
                         Catch::Contains("runs[1].spec_json") &&
                         Catch::Contains("exported 1 run(s) (1 left out: cannot be read)"));
  CHECK(nlohmann::json::parse(readBytes(json_out))["runs"].size() == 1);

  const std::string samples = dir.file("out.jsonl");
  REQUIRE(runCli("export --session '" + session + "' --all --samples --out '" + samples + "'",
                 output) == 0);
  CHECK_THAT(output, Catch::Contains("cannot read run 1, left out: ") &&
                         Catch::Contains("exported 1 run(s) (1 left out"));

  CHECK(runCli("export --session '" + session + "' --run 1 --out '" + dir.file("one.json") + "'",
               output) == 2);
  CHECK_THAT(output, Catch::Contains("runs[1].spec_json"));
}

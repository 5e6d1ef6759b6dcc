// A sweep run as a Slurm array job on a real single-node Slurm (Debian's slurm-wlm and munge,
// started by scripts/slurm-local), its shards merged, equals the same sweep run locally: same
// cells, answers, scores and FLOPs. When Slurm cannot be started here the test fails and says so.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <tuple>

#include <nlohmann/json.hpp>

#include "sessions/session_reader.h"
#include "sessions/session_store.h"
#include "support/run_cli.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"
#include "support/tiny_model_folder.h"

using namespace studio;
using studio::test::CliRun;
using studio::test::runCli;
using studio::test::runCommand;
using studio::test::TempDir;
using studio::test::TinyModelFolder;

namespace {

// Starts the local Slurm into `state` and stops what it started when it goes out of scope.
class LocalSlurm {
 public:
  explicit LocalSlurm(std::string state) : m_state(std::move(state)) {
    m_start = runCommand(script() + " start " + m_state);
  }
  ~LocalSlurm() { runCommand(script() + " stop " + m_state); }
  LocalSlurm(const LocalSlurm&) = delete;
  LocalSlurm& operator=(const LocalSlurm&) = delete;

  bool started() const { return m_start.exit_code == 0; }
  const CliRun& start() const { return m_start; }
  std::string conf() const { return m_state + "/slurm.conf"; }

 private:
  static std::string script() {
    return std::string(test_paths::kSourceDir) + "/scripts/slurm-local";
  }
  std::string m_state;
  CliRun m_start;
};

// What a cell's completed run produced, by sweep key.
using CellOutcome = std::tuple<std::string, std::optional<double>, std::optional<bool>, double,
                               double, std::optional<double>>;

std::map<std::string, CellOutcome> completedCells(const std::string& path) {
  const sessions::SessionStore store(path, {sessions::OpenOptions::Access::ReadOnly});
  const sessions::SessionReader reader(store);
  std::map<std::string, CellOutcome> cells;
  for (const sessions::RunSummary& run : reader.listRuns()) {
    if (run.status != engine::RunStatus::Completed) continue;
    const std::string key = reader.loadSpec(run.id).task_meta.value("sweep_key", "");
    INFO(path << ": " << key);
    CHECK(cells.count(key) == 0);
    cells[key] = {run.answer,        run.score,       run.correct,
                  run.flops_prefill, run.flops_extra, run.target_mass};
  }
  return cells;
}

// The tiny random model: the comparison needs the same cells, not right answers, and a cell of the
// demo model costs 1.5 s.
std::string sweepConfig(const std::string& model) {
  nlohmann::json config = nlohmann::json::parse(R"({
    "tasks": [{"task": "tx_log", "length_param": "ops", "lengths": [25],
               "params": {"accounts": 2, "bug_type": "NEGATIVE_BAL"}}],
    "methods": [{"method": "in_context"},
                {"method": "qttt", "params": {"steps": 2, "span": 32}}],
    "seeds": [0, 1, 2],
    "max_answer_tokens": 24
  })");
  config["model"] = model;
  return config.dump(2);
}

}  // namespace

TEST_CASE("slurm: a sweep as a 3-task array job, merged, equals the sweep run locally",
          "[cluster][slurm]") {
  TempDir dir("slurm-sweep");
  const TinyModelFolder model("slurm-sweep");
  LocalSlurm slurm(dir.file("slurm"));
  if (!slurm.started()) {
    FAIL(
        "Slurm could not be started on this machine, so the sweep could not run as an array "
        "job (scripts/slurm-local start exited "
        << slurm.start().exit_code << "):\n"
        << slurm.start().err << slurm.start().out);
  }
  REQUIRE(setenv("SLURM_CONF", slurm.conf().c_str(), 1) == 0);

  const std::string config = dir.file("sweep.json");
  std::ofstream(config) << sweepConfig(model.path());
  const std::string out = dir.file("array");
  // 6 cells of an estimated 200 s against 80 % of 10 minutes: 2 cells a shard, 3 shards. (A cell
  // takes seconds; the generous limit keeps Slurm from killing a task when make check loads the
  // machine.)
  const CliRun submitted = runCli("sweep --config " + config + " --slurm --out " + out +
                                  " --time 00:10:00 --cell-seconds 200 --json");
  INFO(submitted.err);
  REQUIRE(submitted.exit_code == 0);
  const nlohmann::json submission = nlohmann::json::parse(submitted.out);
  CHECK(submission["shards"] == 3);
  CHECK(submission["tasks"] == 3);
  CHECK(submission["array"] == "0-2");
  REQUIRE(submission.contains("job_id"));

  // The same sweep locally, while Slurm runs the array.
  const std::string local = dir.file("local.sqlite");
  const CliRun local_run = runCli("sweep --config " + config + " --session " + local + " --json");
  INFO(local_run.err);
  REQUIRE(local_run.exit_code == 0);

  nlohmann::json status;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (true) {
    const CliRun polled = runCli("sweep status --out " + out + " --json");
    INFO(polled.err);
    REQUIRE(polled.exit_code == 0);
    status = nlohmann::json::parse(polled.out);
    bool finished = true;
    for (const auto& shard : status["shards"]) {
      const std::string state = shard["slurm"];
      finished = finished && state != "-" && state != "PENDING" && state != "RUNNING" &&
                 state != "CONFIGURING" && state != "COMPLETING";
    }
    if (finished) break;
    if (std::chrono::steady_clock::now() > deadline)
      FAIL("the array did not finish: " << status.dump());
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  INFO(status.dump());
  REQUIRE(status["shards"].size() == 3);
  for (const auto& shard : status["shards"]) {
    CHECK(shard["slurm"] == "COMPLETED");
    CHECK(shard["cells"] == 2);
    CHECK(shard["done"] == 2);
    CHECK(shard["failed"] == 0);
    CHECK(shard["pending"] == 0);
  }
  CHECK(std::filesystem::exists(out + "/logs"));

  // Submitting again finds nothing left to run.
  const CliRun again =
      runCli("sweep --config " + config + " --slurm --out " + out + " --time 00:10:00 --json");
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(nlohmann::json::parse(again.out)["tasks"] == 0);

  const std::string merged = dir.file("merged.sqlite");
  const CliRun merging = runCommand(test::studioCliPath() + " merge --out " + merged + " " + out +
                                    "/shard-*-of-3.sqlite");
  INFO(merging.err);
  REQUIRE(merging.exit_code == 0);

  const auto merged_cells = completedCells(merged);
  const auto local_cells = completedCells(local);
  CHECK(merged_cells.size() == 6);
  CHECK(merged_cells == local_cells);
}

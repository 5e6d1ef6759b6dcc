// studio-cli sweep for reproducing the paper (issue 26) on a tiny model: the lr selected on a
// validation split before the test seeds run (App. 11), every run as a JSON line
// (--log-samples, export --samples), the No-RoPE ablation (--no-rope) and run --json's
// Prop. 3.1 direction, and a resumed sweep over a run that cannot be read.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "support/run_cli.h"
#include "support/session_damage.h"
#include "support/temp_dir.h"
#include "support/tiny_model_folder.h"

using nlohmann::json;
using studio::test::runCli;
using studio::test::TempDir;
using studio::test::TinyModelFolder;

namespace {

std::vector<json> sampleLogLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  return lines;
}

std::string writeSweepConfig(const TempDir& dir, const std::string& model, json extra) {
  json config = {
      {"model", model},
      {"tasks", {{{"task", "tx_log"}, {"length_param", "ops"}, {"lengths", {25}}}}},
      {"methods",
       {{{"method", "in_context"}}, {{"method", "qttt"}, {"params", {{"steps", 1}, {"span", 8}}}}}},
      {"seeds", {0}},
      {"max_answer_tokens", 4}};
  config.update(extra);
  const std::string path = dir.file("sweep.json");
  std::ofstream(path) << config.dump();
  return path;
}

}  // namespace

TEST_CASE(
    "cli sweep selects qttt's lr on the validation seeds, runs the test seeds with it and "
    "logs every run as a JSON line",
    "[cli][sweep_paper]") {
  TinyModelFolder model("sweep-lr");
  TempDir dir("sweep-lr");
  const std::string config = writeSweepConfig(
      dir, model.path(),
      {{"lr_selection", {{"method", "qttt"}, {"lrs", {1e-5, 3e-4}}, {"validation_seeds", {7}}}}});
  const std::string session = dir.file("runs.sqlite");
  const std::string samples = dir.file("samples.jsonl");
  const auto run = runCli("sweep --config '" + config + "' --session '" + session +
                          "' --log-samples '" + samples + "' --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  CHECK(out["ran"] == 4);  // two validation runs (one per lr), then in_context and qttt
  const json& selection = out.at("lr_selection");
  CHECK(selection["method"] == "qttt");
  REQUIRE(selection["tasks"].size() == 1);
  const json& task = selection["tasks"][0];
  CHECK(task["task"] == "tx_log");
  REQUIRE(task["validation"].size() == 2);
  const double chosen = task["lr"].get<double>();
  CHECK((chosen == 1e-5 || chosen == 3e-4));
  for (const json& score : task["validation"]) CHECK(score["runs"] == 1);

  const std::vector<json> lines = sampleLogLines(samples);
  REQUIRE(lines.size() == 4);
  std::set<std::string> labels;
  for (const json& line : lines) {
    labels.insert(line["label"].get<std::string>());
    CHECK(line["task"] == "tx_log");
    CHECK(line["length"] == 25);
    CHECK(line["status"] == "completed");
    CHECK(line["item_id"].get<std::string>().rfind("tx_log-", 0) == 0);
    CHECK(line["prompt_hash"].get<std::string>().size() == 32);
    CHECK(line["references"].size() == 1);
    CHECK(line["score"].is_number());
    CHECK(line["target_mass"].is_number());
    CHECK(line["output"].is_string());
    CHECK(line["answer"].is_string());
    CHECK(line["rope"] == true);
    CHECK(line["provenance"]["device"] == "cpu");  // where it ran, as the run's result has it
    CHECK(line["provenance"]["weights_header_hash"].get<std::string>().size() == 32);
    if (line["label"] == "qttt") {
      CHECK(line["seed"] == 0);
      CHECK(line["params"]["lr"].get<double>() == chosen);  // the test run uses the chosen lr
    }
    if (line["label"].get<std::string>().rfind("qttt@lr=", 0) == 0) CHECK(line["seed"] == 7);
  }
  CHECK(labels == std::set<std::string>{"in_context", "qttt", "qttt@lr=1e-05", "qttt@lr=0.0003"});
  // The validation item and the test item differ, so do their prompts.
  CHECK(lines[0]["prompt_hash"] == lines[1]["prompt_hash"]);
  CHECK(lines[0]["prompt_hash"] != lines[2]["prompt_hash"]);

  // Resuming runs nothing again; export --samples writes the same lines from the session.
  const auto again = runCli("sweep --config '" + config + "' --session '" + session + "' --json");
  REQUIRE(again.exit_code == 0);
  CHECK(json::parse(again.out)["ran"] == 0);
  const std::string exported = dir.file("exported.jsonl");
  const auto exported_run =
      runCli("export --session '" + session + "' --all --samples --out '" + exported + "'");
  INFO(exported_run.err);
  REQUIRE(exported_run.exit_code == 0);
  CHECK(sampleLogLines(exported) == lines);
}

TEST_CASE(
    "cli sweep selects the lr in two sharded stages as it does whole: validation shards, their "
    "merge, then test shards",
    "[cli][sweep_paper]") {
  TinyModelFolder model("sweep-lr-stages");
  TempDir dir("sweep-lr-stages");
  const std::string config = writeSweepConfig(
      dir, model.path(),
      {{"seeds", {0, 1}},
       {"lr_selection",
        {{"method", "qttt"}, {"lrs", {1e-5, 3e-4}}, {"validation_seeds", {7, 8}}}}});
  auto sweep = [&](const std::string& arguments) {
    const auto run = runCli("sweep --config '" + config + "' " + arguments + " --json");
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    return json::parse(run.out);
  };
  const json whole = sweep("--session '" + dir.file("whole.sqlite") + "'");
  CHECK(whole["ran"] == 4 + 4);  // 2 lrs × 2 validation seeds, then 2 methods × 2 test seeds

  const std::string merged = dir.file("validation.sqlite");
  std::vector<std::string> shards;
  int validation_runs = 0;
  for (int shard = 0; shard < 2; ++shard) {
    shards.push_back(dir.file("shard-" + std::to_string(shard) + ".sqlite"));
    const json out = sweep("--session '" + shards.back() + "' --shard " + std::to_string(shard) +
                           "/2 --stage validation");
    validation_runs += out["ran"].get<int>();
    CHECK_FALSE(out.contains("lr_selection"));  // nothing is chosen on a part of the split
  }
  CHECK(validation_runs == 4);
  // A shard's own session holds half of the validation cells: the lr is not chosen on it.
  const auto partial = runCli("sweep --config '" + config + "' --session '" + shards[0] +
                              "' --shard 0/2 --stage test --json");
  CHECK(partial.exit_code == 2);
  CHECK(partial.err.find(shards[0]) != std::string::npos);
  CHECK(partial.err.find("2 of the 4 validation cells are not completed") != std::string::npos);

  const auto merge = runCli("merge --out '" + merged + "' '" + shards[0] + "' '" + shards[1] + "'");
  INFO(merge.err);
  REQUIRE(merge.exit_code == 0);
  int test_runs = 0;
  for (int shard = 0; shard < 2; ++shard) {
    const json out = sweep("--session '" + shards[shard] + "' --shard " + std::to_string(shard) +
                           "/2 --stage test --validation-session '" + merged + "'");
    test_runs += out["ran"].get<int>();
    // Every shard chose what the whole sweep chose, from the same validation runs.
    CHECK(out["lr_selection"]["tasks"] == whole["lr_selection"]["tasks"]);
  }
  CHECK(test_runs == 4);

  // Sharding a selecting sweep without stages, stages without lr_selection, a validation
  // session without --stage test: refused, naming the option.
  auto refused = [&](const std::string& arguments, const std::string& option) {
    const auto run = runCli("sweep --config '" + config + "' --session '" +
                            dir.file("refused.sqlite") + "' " + arguments);
    INFO(arguments);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(option) != std::string::npos);
  };
  refused("--shard 0/2", "--stage validation");
  refused("--stage validation --validation-session '" + merged + "'", "--validation-session");
  TempDir plain_dir("sweep-lr-stages-plain");
  const std::string plain = writeSweepConfig(plain_dir, model.path(), json::object());
  const auto no_selection = runCli("sweep --config '" + plain + "' --session '" +
                                   plain_dir.file("runs.sqlite") + "' --stage validation");
  CHECK(no_selection.exit_code == 2);
  CHECK(no_selection.err.find("--stage") != std::string::npos);
}

TEST_CASE(
    "cli sweep resumed over a damaged run: skipped, named once, left out of the summary and log",
    "[cli][sweep_paper]") {
  TinyModelFolder model("sweep-damaged");
  TempDir dir("sweep-damaged");
  const std::string config = writeSweepConfig(dir, model.path(), json::object());
  const std::string session = dir.file("runs.sqlite");
  const auto first = runCli("sweep --config '" + config + "' --session '" + session + "' --json");
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  REQUIRE(json::parse(first.out)["summary"].size() == 2);  // in_context and qttt
  studio::test::makeRunUnreadable(session, 1);
  const std::string samples = dir.file("samples.jsonl");
  const auto again = runCli("sweep --config '" + config + "' --session '" + session +
                            "' --log-samples '" + samples + "' --json");
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  const json out = json::parse(again.out);
  CHECK(out["ran"] == 0);  // the damaged run's cell is still in the session: not run again
  CHECK(out["skipped"] == 2);
  // The sample log and the summary both read the session; the damaged run is named once.
  const std::size_t named = again.err.find("cannot read run 1, left out: ");
  CHECK(named != std::string::npos);
  CHECK(again.err.find("cannot read run 1", named + 1) == std::string::npos);
  CHECK(again.err.find("runs[1].spec_json: run_spec.method") != std::string::npos);
  REQUIRE(out["summary"].size() == 1);
  CHECK(out["summary"][0]["method"] == "qttt");
  const std::vector<json> lines = sampleLogLines(samples);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0]["label"] == "qttt");
}

TEST_CASE("cli sweep --no-rope and run --no-rope: the ablation as a run option", "[cli][rope]") {
  TinyModelFolder model("sweep-no-rope");
  TempDir dir("sweep-no-rope");
  const std::string config = writeSweepConfig(dir, model.path(), json::object());
  const std::string session = dir.file("runs.sqlite");
  const std::string samples = dir.file("samples.jsonl");
  const auto run = runCli("sweep --config '" + config + "' --session '" + session +
                          "' --no-rope --log-samples '" + samples + "' --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  for (const json& line : sampleLogLines(samples)) {
    CHECK(line["rope"] == false);
    CHECK(line["label"].get<std::string>().find("+no_rope") != std::string::npos);
  }
  const auto slurm = runCli("sweep --config '" + config + "' --no-rope --slurm --out '" +
                            dir.file("array") + "' --dry-run");
  CHECK(slurm.exit_code == 2);
  CHECK(slurm.err.find("--no-rope") != std::string::npos);

  auto massOf = [&](const std::string& flag) {
    const auto single = runCli("run --model '" + model.path() +
                               "' --text 'The vault code is QX7. Keep it.' --question 'The code?' "
                               "--method in_context --target-text QX7 --max-tokens 2 --json " +
                               flag);
    INFO(single.err);
    REQUIRE(single.exit_code == 0);
    return json::parse(single.out)["target_mass"].get<double>();
  };
  CHECK(massOf("--no-rope") != Approx(massOf("")));
}

TEST_CASE("cli run --json shows qttt's Prop. 3.1 direction per step", "[cli][sweep_paper]") {
  TinyModelFolder model("run-direction");
  const auto run = runCli("run --model '" + model.path() +
                          "' --text 'The vault code is QX7. Keep it safe and never tell.' "
                          "--question 'The code?' --method qttt --set steps=3 --set span=8 "
                          "--target-text QX7 --max-tokens 2 --seed 5 --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  CHECK(out["details"]["query_direction"]["mean_cosine"].size() == 3);
  CHECK(out["details"]["span_seed"] == 5);
}

// `studio-cli sweep --slurm --dry-run` and `sweep status` without a cluster: the files the
// submission leaves in --out, the shard count it chose, and its errors.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/run_cli.h"
#include "support/temp_dir.h"

using studio::test::CliRun;
using studio::test::runCli;
using studio::test::TempDir;

namespace {

// 2 lengths × 3 seeds × 2 methods = 12 cells.
const char* const kArrayConfig = R"({
  "model": "resources/models/demo-qwen3",
  "tasks": [{"task": "tx_log", "length_param": "ops", "lengths": [25, 50]}],
  "methods": [{"method": "in_context"}, {"method": "thinking"}],
  "seeds": [0, 1, 2]
})";

std::string fileText(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("sweep --slurm --dry-run: the script, the configuration copy and the record",
          "[cluster]") {
  TempDir dir("sweep-array");
  const std::string config = dir.file("sweep.json");
  std::ofstream(config) << kArrayConfig;
  const std::string out = dir.file("array");
  // 12 cells of 10 min against 80 % of an hour: 4 cells a shard, 3 shards.
  const CliRun run = runCli("sweep --config " + config + " --slurm --dry-run --out " + out +
                            " --time 01:00:00 --cell-seconds 600 --partition gpu "
                            "--gpus-per-task 1 --array-limit 2");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("sbatch " + out + "/sweep-array.sbatch"));
  CHECK_THAT(run.err, Catch::Contains("12 cells in 3 shards"));

  const std::string script = fileText(out + "/sweep-array.sbatch");
  CHECK_THAT(script, Catch::Contains("#SBATCH --array=0-2%2\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --time=01:00:00\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --partition=gpu\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --gpus-per-task=1\n"));
  CHECK_THAT(script, Catch::Contains("studio-cli' sweep --config '" + out + "/sweep-config.json'"));
  CHECK_THAT(script, Catch::Contains("--shard \"$shard\"/3\n"));
  CHECK(nlohmann::json::parse(fileText(out + "/sweep-config.json")) ==
        nlohmann::json::parse(kArrayConfig));
  const nlohmann::json record = nlohmann::json::parse(fileText(out + "/sweep-array.json"));
  CHECK(record["shards"] == 3);
  CHECK(record["submissions"].empty());

  // Nothing ran yet: every cell pending, Slurm knows no job.
  const CliRun status = runCli("sweep status --out " + out + " --json");
  INFO(status.err);
  REQUIRE(status.exit_code == 0);
  const nlohmann::json shards = nlohmann::json::parse(status.out)["shards"];
  REQUIRE(shards.size() == 3);
  for (const auto& shard : shards) {
    CHECK(shard["slurm"] == "-");
    CHECK(shard["cells"] == 4);
    CHECK(shard["pending"] == 4);
  }

  // The folder belongs to this configuration.
  nlohmann::json changed = nlohmann::json::parse(kArrayConfig);
  changed["seeds"] = {7};
  std::ofstream(config) << changed.dump();
  const CliRun other = runCli("sweep --config " + config + " --slurm --dry-run --out " + out +
                              " --cell-seconds 600");
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.err,
             Catch::Contains("sweep-config.json") && Catch::Contains("another configuration"));
}

TEST_CASE("sweep --slurm: an lr-selecting sweep goes in two stages, each in its own folder",
          "[cluster]") {
  TempDir dir("sweep-array-stages");
  nlohmann::json selecting = nlohmann::json::parse(kArrayConfig);
  selecting["lr_selection"] = {{"method", "in_context"}, {"lrs", {1e-5, 3e-4}},
                               {"validation_seeds", {9}}};
  selecting["methods"] = {{{"method", "qttt"}}, {{"method", "in_context"}}};
  selecting["lr_selection"]["method"] = "qttt";
  const std::string config = dir.file("sweep.json");
  std::ofstream(config) << selecting.dump();
  const std::string validation = dir.file("validation");

  const CliRun whole = runCli("sweep --config " + config + " --slurm --dry-run --out " +
                              validation + " --cell-seconds 60");
  CHECK(whole.exit_code == 2);
  CHECK_THAT(whole.err, Catch::Contains("--stage validation"));

  // The validation stage: 2 lengths × 1 validation seed × 2 lrs = 4 cells.
  const CliRun run = runCli("sweep --config " + config + " --slurm --dry-run --out " + validation +
                            " --cell-seconds 60 --stage validation");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.err, Catch::Contains("4 cells in"));
  CHECK_THAT(fileText(validation + "/sweep-array.sbatch"),
             Catch::Contains("--shard \"$shard\"/1 '--stage' 'validation'\n"));
  CHECK(nlohmann::json::parse(fileText(validation + "/sweep-array.json"))["stage"] ==
        "validation");
  const CliRun status = runCli("sweep status --out " + validation + " --json");
  INFO(status.err);
  REQUIRE(status.exit_code == 0);
  CHECK(nlohmann::json::parse(status.out)["shards"][0]["cells"] == 4);

  // The test stage needs the validation stage's merged sessions, and a folder of its own.
  const CliRun no_session = runCli("sweep --config " + config + " --slurm --dry-run --out " +
                                   dir.file("test") + " --cell-seconds 60 --stage test");
  CHECK(no_session.exit_code == 2);
  CHECK_THAT(no_session.err, Catch::Contains("--validation-session"));
  // A folder's record keeps its stage: another stage's submission there is refused.
  nlohmann::json record = nlohmann::json::parse(fileText(validation + "/sweep-array.json"));
  record["stage"] = "test";
  std::ofstream(validation + "/sweep-array.json") << record.dump();
  const CliRun other_stage = runCli("sweep --config " + config + " --slurm --dry-run --out " +
                                    validation + " --cell-seconds 60 --stage validation");
  CHECK(other_stage.exit_code == 2);
  CHECK_THAT(other_stage.err, Catch::Contains("shards of stage test"));
}

TEST_CASE("sweep --slurm: errors name the option", "[cluster]") {
  TempDir dir("sweep-array-errors");
  const std::string config = dir.file("sweep.json");
  std::ofstream(config) << kArrayConfig;
  const std::string out = dir.file("array");

  const CliRun no_estimate = runCli("sweep --config " + config + " --slurm --dry-run --out " + out);
  CHECK(no_estimate.exit_code == 2);
  CHECK_THAT(no_estimate.err, Catch::Contains("--cell-seconds"));

  const CliRun no_out = runCli("sweep --config " + config + " --slurm --cell-seconds 5");
  CHECK(no_out.exit_code == 2);
  CHECK_THAT(no_out.err, Catch::Contains("--out"));

  const CliRun too_long = runCli("sweep --config " + config + " --slurm --dry-run --out " + out +
                                 " --time 00:10:00 --cell-seconds 600");
  CHECK(too_long.exit_code == 2);
  CHECK_THAT(too_long.err, Catch::Contains("--time"));

  const CliRun bad_time = runCli("sweep --config " + config + " --slurm --dry-run --out " + out +
                                 " --time 4h --cell-seconds 6");
  CHECK(bad_time.exit_code == 2);
  CHECK_THAT(bad_time.err, Catch::Contains("--time") && Catch::Contains("4h"));

  const std::string spaced = dir.file("my sweep");
  const CliRun with_space = runCli("sweep --config " + config + " --slurm --dry-run --out '" +
                                   spaced + "' --cell-seconds 6");
  CHECK(with_space.exit_code == 2);
  CHECK_THAT(with_space.err, Catch::Contains("--out") && Catch::Contains("whitespace"));
  CHECK_FALSE(std::filesystem::exists(spaced));
  // A refused submission writes nothing.
  CHECK_FALSE(std::filesystem::exists(out));

  const CliRun with_shard =
      runCli("sweep --config " + config + " --slurm --shard 1/2 --cell-seconds 6 --out " + out);
  CHECK(with_shard.exit_code == 2);
  CHECK_THAT(with_shard.err, Catch::Contains("--shard"));

  const CliRun no_session = runCli("sweep --config " + config);
  CHECK(no_session.exit_code == 2);
  CHECK_THAT(no_session.err, Catch::Contains("--session"));

  const CliRun no_array = runCli("sweep status --out " + dir.file("nothing"));
  CHECK(no_array.exit_code == 2);
  CHECK_THAT(no_array.err, Catch::Contains("sweep-array.json"));
}

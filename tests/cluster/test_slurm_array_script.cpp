// The sweep's sbatch array script: what each line asks of Slurm and the command each task runs.

#include <catch2/catch.hpp>

#include "core/cluster/slurm_array_script.h"

using namespace studio::cluster;

namespace {

SlurmArrayJob sampleJob() {
  SlurmArrayJob job;
  job.studio_cli = "/opt/studio/build/app/studio-cli";
  job.config = "/shared/sweep/sweep-config.json";
  job.out_dir = "/shared/sweep";
  job.work_dir = "/home/me/project";
  job.shards = 12;
  job.tasks = {0, 1, 2, 3, 7, 9, 10};
  job.time_limit_seconds = 4 * 3600;
  return job;
}

}  // namespace

TEST_CASE("array script: task i runs shard i/n into its own session", "[cluster]") {
  const std::string script = slurmArrayScript(sampleJob());
  CHECK(script.rfind("#!/bin/bash\n", 0) == 0);
  CHECK_THAT(script, Catch::Contains("#SBATCH --array=0-3,7,9-10\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --time=04:00:00\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --ntasks=1\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --chdir=/home/me/project\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --output=/shared/sweep/logs/shard-%a-job-%A.out\n"));
  CHECK_THAT(script, Catch::Contains("exec '/opt/studio/build/app/studio-cli' sweep --config "
                                     "'/shared/sweep/sweep-config.json' \\\n    --session "
                                     "'/shared/sweep'/shard-\"$shard\"-of-12.sqlite --shard "
                                     "\"$shard\"/12\n"));
  // Unset options ask for nothing.
  CHECK_THAT(script, !Catch::Contains("--partition"));
  CHECK_THAT(script, !Catch::Contains("--gpus-per-task"));
}

TEST_CASE("array script: partition, GPUs, a concurrency limit and days", "[cluster]") {
  SlurmArrayJob job = sampleJob();
  job.partition = "gpu-long";
  job.gpus_per_task = 1;
  job.array_limit = 4;
  job.time_limit_seconds = 2 * 86400 + 30 * 60;
  const std::string script = slurmArrayScript(job);
  CHECK_THAT(script, Catch::Contains("#SBATCH --partition=gpu-long\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --gpus-per-task=1\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --array=0-3,7,9-10%4\n"));
  CHECK_THAT(script, Catch::Contains("#SBATCH --time=2-00:30:00\n"));
}

TEST_CASE("array script: a path with a quote is quoted for bash", "[cluster]") {
  SlurmArrayJob job = sampleJob();
  job.config = "/shared/it's/sweep-config.json";
  CHECK_THAT(slurmArrayScript(job),
             Catch::Contains("--config '/shared/it'\\''s/sweep-config.json'"));
}

TEST_CASE("array script: values an #SBATCH line cannot carry are refused naming the option",
          "[cluster]") {
  SlurmArrayJob job = sampleJob();
  job.out_dir = "/shared/my sweep";
  CHECK_THROWS_WITH(slurmArrayScript(job),
                    Catch::Contains("--out") && Catch::Contains("whitespace"));
  job = sampleJob();
  job.partition = "a b";
  CHECK_THROWS_WITH(slurmArrayScript(job), Catch::Contains("--partition"));
  job = sampleJob();
  job.tasks = {};
  CHECK_THROWS_WITH(slurmArrayScript(job), Catch::Contains("tasks"));
  job = sampleJob();
  job.tasks = {3, 12};
  CHECK_THROWS_WITH(slurmArrayScript(job), Catch::Contains("tasks"));
}

TEST_CASE("array script: names and --array values", "[cluster]") {
  CHECK(shardSessionName(3, 12) == "shard-3-of-12.sqlite");
  CHECK(arrayIndexSpec({0, 1, 2}, 0) == "0-2");
  CHECK(arrayIndexSpec({5}, 2) == "5%2");
  CHECK(arrayIndexSpec({0, 2, 4, 5}, 0) == "0,2,4-5");
}

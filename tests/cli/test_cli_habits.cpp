// studio-cli as researchers type it: llama.cpp's -m/-p/-n/-s/--temp, --dtype bfloat16,
// --device cuda:1, and a model named Org/Name found in a Hugging Face hub cache.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/hub_cache_fixture.h"
#include "support/run_cli.h"
#include "support/temp_dir.h"
#include "support/tiny_model_folder.h"

namespace fs = std::filesystem;
using nlohmann::json;
using studio::test::CliRun;
using studio::test::TempDir;
using studio::test::TinyModelFolder;
using studio::test::runCli;
using studio::test::runCommand;

namespace {

constexpr const char* kHabitsCommit = "0123456789abcdef0123456789abcdef01234567";

CliRun runWithCache(const fs::path& cache, const std::string& arguments) {
  return runCommand("HF_HUB_CACHE='" + cache.string() + "' " + studio::test::studioCliPath() +
                    " " + arguments);
}

}  // namespace

TEST_CASE("cli habits: -m -p -n -s --temp do what --model --prompt --max-tokens --seed "
          "--temperature do", "[cli]") {
  TinyModelFolder model("habits-aliases");
  const std::string path = "'" + model.path() + "'";
  const auto long_form = runCli("generate --model " + path +
                                " --prompt hi --max-tokens 3 --seed 5 --temperature 0.8 --json");
  INFO(long_form.err);
  REQUIRE(long_form.exit_code == 0);
  const json out = json::parse(long_form.out);
  CHECK(out["generated_ids"].size() <= 3);

  const auto short_form = runCli("generate -m " + path + " -p hi -n 3 -s 5 --temp 0.8 --json");
  INFO(short_form.err);
  REQUIRE(short_form.exit_code == 0);
  CHECK(short_form.out == long_form.out);
  // Glued short options and --temp=, as getopt allows.
  CHECK(runCli("generate -m " + path + " -phi -n3 -s5 --temp=0.8 --json").out == long_form.out);

  // The alias's value goes through the long option's own checks, named by the long option.
  auto run = runCli("generate -m " + path + " -p hi -n 0");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("--max-tokens") != std::string::npos);
  run = runCli("generate -m " + path + " -p hi --temp -1");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("--temperature") != std::string::npos);
  // Given both ways is given twice.
  run = runCli("generate -m " + path + " --model " + path + " -p hi");
  CHECK(run.exit_code == 2);
  // -p excludes --ids as --prompt does; -m satisfies the required --model.
  run = runCli("generate -m " + path + " -p hi --ids 1,2");
  CHECK(run.exit_code == 2);

  // Other commands: -m and -s where they have --model and --seed; -n on run.
  const auto forward = runCli("forward -m " + path + " --ids 3,5,7 --json");
  CHECK(forward.exit_code == 0);
  CHECK(forward.out == runCli("forward --model " + path + " --ids 3,5,7 --json").out);
  run = runCli("run -m " + path + " --text 'The code is QX7.' --question 'The code?' "
               "--method in_context -n 2 -s 1 --json");
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK(runCli("task generate --task niah --set chars=150 -s 3 --json").out ==
        runCli("task generate --task niah --set chars=150 --seed 3 --json").out);

  // The help shows each alias beside its long option.
  const auto help = runCli("generate --help");
  CHECK(help.out.find("(also -m)") != std::string::npos);
  CHECK(help.out.find("(also -p)") != std::string::npos);
  CHECK(help.out.find("(also -n)") != std::string::npos);
  CHECK(help.out.find("(also -s)") != std::string::npos);
  CHECK(help.out.find("(also --temp)") != std::string::npos);
  // No alias where the long option does not exist: forward has no --prompt.
  CHECK(runCli("forward -m " + path + " -p hi").exit_code == 2);
}

TEST_CASE("cli habits: --dtype bfloat16|float16|float32 as well as bf16|f16|f32", "[cli]") {
  TinyModelFolder model("habits-dtype");
  const std::string path = "'" + model.path() + "'";
  const auto bf16 = runCli("forward -m " + path + " --ids 3,5,7 --dtype bf16 --json");
  INFO(bf16.err);
  REQUIRE(bf16.exit_code == 0);
  const auto bfloat16 = runCli("forward -m " + path + " --ids 3,5,7 --dtype bfloat16 --json");
  INFO(bfloat16.err);
  REQUIRE(bfloat16.exit_code == 0);
  CHECK(bfloat16.out == bf16.out);
  CHECK(runCli("forward -m " + path + " --ids 3,5,7 --dtype float32 --json").out ==
        runCli("forward -m " + path + " --ids 3,5,7 --dtype f32 --json").out);
  const auto generated = runCli("generate -m " + path + " -p hi -n 2 --dtype bfloat16 --json");
  INFO(generated.err);
  CHECK(generated.exit_code == 0);

  // Commands that declare --dtype themselves take the same spellings, stored as the short name.
  auto run = runCli("inspect --model " + path + " --dtype float16");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(json::parse(run.out)["dtype"] == "f16");

  // A bad dtype names every spelling accepted.
  for (const std::string& command : {"generate -m " + path + " -p hi", "run -m " + path +
                                    " --text x --question y --method in_context",
                                    "inspect -m " + path}) {
    INFO(command);
    run = runCli(command + " --dtype f64");
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("'f64'") != std::string::npos);
    for (const char* spelling : {"f32", "bf16", "f16", "float32", "bfloat16", "float16"}) {
      CHECK(run.err.find(spelling) != std::string::npos);
    }
  }
}

TEST_CASE("cli habits: --device cuda:1 parses; without CUDA it says so, not a parse error",
          "[cli]") {
  TinyModelFolder model("habits-device");
  const std::string path = "'" + model.path() + "'";
  const bool no_cuda =
      runCli("forward -m " + path + " --ids 1 --device cuda").err.find("cuda was asked for") !=
      std::string::npos;
  for (const std::string& command :
       {"generate -m " + path + " -p hi -n 1", "forward -m " + path + " --ids 1,2",
        "run -m " + path + " --text x --question y --method in_context -n 1",
        "bench prefill -m " + path + " --tokens 4", "inspect -m " + path}) {
    INFO(command);
    const auto run = runCli(command + " --device cuda:1");
    INFO(run.err);
    CHECK(run.err.find("unknown device") == std::string::npos);
    CHECK(run.err.find("--help") == std::string::npos);  // not CLI11's parse error
    if (no_cuda) {
      // A run records the failure in its result (exit 1); the others exit 2 on bad input.
      CHECK(run.exit_code == (command.rfind("run ", 0) == 0 ? 1 : 2));
      CHECK((run.out + run.err).find("cuda was asked for") != std::string::npos);
    }
  }
  // A device that is none of cpu, cuda, cuda:N is refused at parse time, naming the spellings.
  for (const char* device : {"tpu", "cuda:", "cuda:x", "cuda1"}) {
    INFO(device);
    const auto run = runCli("generate -m " + path + " -p hi --device " + device);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("cuda:N") != std::string::npos);
  }
}

TEST_CASE("cli habits: -m Org/Name loads the model from the Hugging Face cache", "[cli]") {
  TinyModelFolder model("habits-hub");
  TempDir temp("habits-hub");
  const fs::path cache = temp / "hub";
  studio::test::addHubSnapshot(cache, "models--Org--Tiny", kHabitsCommit,
                               studio::test::folderFiles(model.path()), {"main"});

  const auto from_folder = runCli("generate -m '" + model.path() + "' -p hi -n 3 --json");
  REQUIRE(from_folder.exit_code == 0);
  auto run = runWithCache(cache, "generate -m Org/Tiny -p hi -n 3 --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out == from_folder.out);
  run = runWithCache(cache, std::string("generate -m Org/Tiny@") + kHabitsCommit +
                                " -p hi -n 3 --json");
  CHECK(run.out == from_folder.out);

  // Commands that declare --model themselves resolve it too.
  run = runWithCache(cache, "inspect --model Org/Tiny");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(json::parse(run.out)["model_type"] == "qwen3");
  run = runWithCache(cache, "run --model Org/Tiny --text 'The code is QX7.' --question 'The code?' "
                            "--method in_context -n 2 --json");
  INFO(run.err);
  CHECK(run.exit_code == 0);
  run = runWithCache(cache, "bench prefill --model Org/Tiny --tokens 4");
  INFO(run.err);
  CHECK(run.exit_code == 0);

  // Not in the cache: exit 2, naming the cache folder searched; nothing is downloaded.
  run = runWithCache(cache, "generate -m Org/Absent -p hi");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find((cache / "models--Org--Absent").string()) != std::string::npos);
  CHECK(run.err.find("HF_HUB_CACHE") != std::string::npos);
  CHECK(run.err.find("never downloads") != std::string::npos);
}

// studio-cli run end to end on a tiny model: the result JSON, a task item file standing in for
// document, question, targets and answers, recording into a session, and bad input with exit 2.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/run_cli.h"
#include "support/tiny_model_folder.h"

using nlohmann::json;
using studio::test::TinyModelFolder;
using studio::test::runCli;

namespace {

std::filesystem::path tempFile(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("studio-run-cli-" + std::to_string(getpid()) + "-" + name);
}

}  // namespace

TEST_CASE("cli run prints the answer, FLOPs, wall time and the answer query's probe", "[cli]") {
  TinyModelFolder model("run");
  const auto run = runCli("run --model '" + model.path() +
                          "' --text 'The vault code is QX7. Keep it.' --question 'The code?' "
                          "--method in_context --target-text QX7 --max-tokens 3 --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  CHECK(out["status"] == "completed");
  CHECK(out["method"] == "in_context");
  CHECK(out["generated_tokens"].get<int>() >= 1);
  CHECK(out["flops"]["prefill"].get<double>() > 0);
  CHECK(out["wall_seconds"].get<double>() > 0);
  REQUIRE(out["target_mass"].is_number());
  CHECK(out["target_mass"].get<double>() > 0);
  CHECK(out["target_mass"].get<double>() < 1);
  CHECK(out["correct"].is_null());  // no reference answer was given
}

TEST_CASE("cli run --item takes document, question, targets and answers from a task item",
          "[cli]") {
  TinyModelFolder model("run-item");
  const auto item_path = tempFile("item.json");
  const auto generated = runCli("task generate --task niah --set chars=150 --seed 3 --json");
  REQUIRE(generated.exit_code == 0);
  std::ofstream(item_path) << generated.out;
  const auto session = tempFile("runs.sqlite");
  const auto run = runCli("run --model '" + model.path() + "' --item '" +
                          item_path.string() + "' --method in_context --max-tokens 10 --session '" +
                          session.string() + "' --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  CHECK(out["target_mass"].is_number());  // the item's needle became the target
  CHECK(out["correct"].is_boolean());     // scored against the item's answer
  CHECK(out["session_run_id"].get<int>() == 1);
  const auto exported_path = tempFile("run.json");
  const auto exported = runCli("export --session '" + session.string() +
                               "' --run 1 --format json --out '" + exported_path.string() + "'");
  REQUIRE(exported.exit_code == 0);
  std::ifstream in(exported_path);
  const std::string dump = json::parse(in).dump();
  CHECK(dump.find("What is the access code") != std::string::npos);  // the item's question
  CHECK(dump.find(json::parse(generated.out)["answer"].get<std::string>()) != std::string::npos);
  std::filesystem::remove(item_path);
  std::filesystem::remove(exported_path);
  std::filesystem::remove(session);
  std::filesystem::remove(session.string() + "-wal");
  std::filesystem::remove(session.string() + "-shm");
}

TEST_CASE("cli run rejects bad input with exit code 2 and a named field", "[cli]") {
  TinyModelFolder model("run-bad");
  const std::string m = "run --model '" + model.path() + "' ";
  const auto broken = tempFile("broken.json");
  std::ofstream(broken) << R"({"context": "abc", "question": "q?", "targets": [{"start": 1, "end": 9}]})";
  struct Case {
    std::string args, field;
  };
  const Case cases[] = {
      {m + "--text abc --method in_context", "--question"},
      {m + "--text abc --document /etc/hostname --question q --method in_context", "--document"},
      {m + "--text abc --question q --method nope", "nope"},
      {m + "--text abc --question q --method qttt --set stepz=3", "qttt.stepz"},
      {m + "--item /nonexistent/item.json --method in_context", "/nonexistent/item.json"},
      {m + "--item '" + broken.string() + "' --method in_context", "targets[0]"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const auto run = runCli(c.args);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(c.field) != std::string::npos);
  }
  std::filesystem::remove(broken);
}

TEST_CASE("cli run --document takes a folder, read as the window reads a repository", "[cli]") {
  TinyModelFolder model("run-folder");
  const std::filesystem::path repo = tempFile("repo");
  std::filesystem::create_directories(repo / "src");
  std::ofstream(repo / "src" / "vault.py") << "CODE = 'QX7'\n";
  std::ofstream(repo / "notes.txt") << "LEAKED-NOTE\n";
  std::ofstream(repo / ".gitignore") << "notes.txt\n";
  const std::string m = "run --model '" + model.path() + "' --document '" + repo.string() +
                        "' --question 'The code?' --method in_context --max-tokens 2 --json ";
  const auto run = runCli(m + "--target-text QX7");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(json::parse(run.out)["target_mass"].is_number());
  // The ignored file is not part of the document: a target in it is not found.
  const auto ignored = runCli(m + "--target-text LEAKED-NOTE");
  CHECK(ignored.exit_code == 2);
  CHECK(ignored.err.find("LEAKED-NOTE") != std::string::npos);
  std::filesystem::remove_all(repo);
}

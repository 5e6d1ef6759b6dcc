// studio-cli bench methods (App. 15): the four methods timed at the FLOPs of N qTTT steps.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support/run_cli.h"
#include "support/tiny_model_folder.h"

using nlohmann::json;
using studio::test::runCli;
using studio::test::TinyModelFolder;

TEST_CASE("cli bench methods prints t_ICL, t_think, t_BoN and t_qTTT at matched FLOPs",
          "[cli][bench_methods]") {
  TinyModelFolder model("bench-methods");
  const auto run = runCli("bench methods --model '" + model.path() +
                          "' --lengths 800 --steps 2 --span 16 --bon-tokens 4 --repeats 2 --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  REQUIRE(out["lengths"].size() == 1);
  const json& row = out["lengths"][0];
  const double T = row["prompt_tokens"].get<double>();
  CHECK(T == Approx(800).epsilon(0.05));  // the haystack sized to the tokenizer
  // App. 10: thinking tokens worth 2 steps of 16 are about 2·N·k = 64 when k ≪ T.
  CHECK(row["n_think"].get<double>() > 32);
  CHECK(row["n_think"].get<double>() < 128);
  CHECK(row["n_bon"].get<int>() >= 1);
  for (const char* t : {"t_icl", "t_think", "t_bon", "t_qttt"}) {
    INFO(t);
    CHECK(row[t]["mean"].get<double>() > 0);
    CHECK(row[t]["std"].get<double>() >= 0);
  }
  // Exactly N_think scratchpad tokens (App. 11's FLOP-matched thinking), then the answer.
  CHECK(row["generated_think"].get<int>() >= row["n_think"].get<int>());
  CHECK(out["provenance"]["device"] == "cpu");
  CHECK(out["provenance"]["config_hash"].get<std::string>().size() == 32);
  CHECK(row["generated_bon"].get<int>() >= 1);
  // The qTTT run spent the budget that set the others (its prefill and answer on top).
  CHECK(row["flops_qttt_run"].get<double>() > row["flops_qttt"].get<double>());

  const auto table = runCli("bench methods --model '" + model.path() +
                            "' --lengths 800 --steps 1 --span 16 --bon-tokens 4 --repeats 1");
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("t_qTTT") != std::string::npos);
  CHECK(table.out.find("N_think") != std::string::npos);
  CHECK(table.out.find("generated tokens: thinking") != std::string::npos);
  const auto short_context =
      runCli("bench methods --model '" + model.path() + "' --lengths 20 --span 16");
  CHECK(short_context.exit_code == 2);
  CHECK(short_context.err.find("--lengths") != std::string::npos);
}

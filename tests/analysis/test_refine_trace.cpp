// A ReFINE step read back from a session: an artifact with no prompt positions, or with a damaged
// field, is refused naming the field (the first used to crash the entropy figure), and a valid one
// draws its curve.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "analysis/refine_figures.h"
#include "analysis/refine_trace.h"

using namespace studio;

namespace {

nlohmann::json validMeta() {
  const nlohmann::json rollout = {{"position", 4},     {"tokens", {1, 2}}, {"truth", {1, 3}},
                                  {"reward_cos", 0.5}, {"reward_binary", 0.0}, {"reward", 0.5},
                                  {"advantage", 0.1}};
  const nlohmann::json chunk = {{"start", 0}, {"end", 5}, {"first", 1}, {"last", 4}, {"position", 4}};
  return {{"step", 0},  {"loss_ntp", 1.0}, {"loss_nsp", 2.0},          {"loss", 3.0},
          {"chunks", {chunk}}, {"rollouts", {rollout}}};
}

analysis::RunTrace refineRun(std::int64_t positions, const nlohmann::json& meta = validMeta()) {
  analysis::RunTrace run;
  run.id = 3;
  run.spec.method = "refine";
  engine::ArtifactEvent artifact;
  artifact.name = "refine_step";
  artifact.kind = "refine_entropy";
  artifact.shape = {2, positions};                                      // [2, S]
  artifact.data.assign(static_cast<std::size_t>(2 * positions), 0.5f);  // H_t, smoothed H_t
  artifact.meta_json = meta.dump();
  run.add(artifact);
  return run;
}

}  // namespace

TEST_CASE("a refine_step artifact with no prompt positions is refused naming its field",
          "[analysis][refine]") {
  CHECK_THROWS_WITH(analysis::refineSteps(refineRun(0)),
                    Catch::Contains("run 3") && Catch::Contains("refine_step.data"));

  const analysis::RunTrace valid = refineRun(5);
  const std::vector<analysis::RefineStepView> steps = analysis::refineSteps(valid);
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].entropy.size() == 5);
  const analysis::Figure figure = analysis::refineEntropyFigure({&valid}, -1);
  REQUIRE(figure.findSeries("H_t"));
  CHECK(figure.findSeries("H_t")->ys.size() == 5);
}

TEST_CASE("a refine_step artifact with a damaged field is refused naming it", "[analysis][refine]") {
  const analysis::RunTrace valid = refineRun(5);
  const std::vector<analysis::RefineStepView> steps = analysis::refineSteps(valid);
  REQUIRE(steps.size() == 1);
  REQUIRE(steps[0].chunks.size() == 1);
  CHECK(steps[0].chunks[0].last == 4);
  REQUIRE(steps[0].rollouts.size() == 1);
  CHECK(steps[0].rollouts[0].truth == std::vector<std::int64_t>{1, 3});
  CHECK(steps[0].rollouts[0].group == 0);  // left out: the first group

  using Catch::Contains;
  nlohmann::json meta = validMeta();
  meta["rollouts"][0]["reward"] = "high";
  CHECK_THROWS_WITH(analysis::refineSteps(refineRun(5, meta)),
                    Contains("run 3") && Contains("refine_step.meta.rollouts[0].reward: must be a number"));
  meta = validMeta();
  meta["rollouts"][0]["tokens"] = {1, "2"};
  CHECK_THROWS_WITH(analysis::refineSteps(refineRun(5, meta)),
                    Contains("refine_step.meta.rollouts[0].tokens[1]: must be an integer"));
  meta = validMeta();
  meta["chunks"][0].erase("end");
  CHECK_THROWS_WITH(analysis::refineSteps(refineRun(5, meta)),
                    Contains("refine_step.meta.chunks[0].end: is missing"));
  meta = validMeta();
  meta["chunks"] = {7};
  CHECK_THROWS_WITH(analysis::refineSteps(refineRun(5, meta)),
                    Contains("refine_step.meta.chunks[0]: must be a JSON object"));
  meta = validMeta();
  meta.erase("loss");
  CHECK_THROWS_WITH(analysis::refineSteps(refineRun(5, meta)),
                    Contains("refine_step.meta.loss: is missing"));
}

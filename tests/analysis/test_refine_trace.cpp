// A ReFINE step read back from a session: an artifact with no prompt positions is refused naming
// its field (it used to crash the entropy figure), and a valid one draws its curve.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "analysis/refine_figures.h"
#include "analysis/refine_trace.h"

using namespace studio;

namespace {

analysis::RunTrace refineRun(std::int64_t positions) {
  analysis::RunTrace run;
  run.id = 3;
  run.spec.method = "refine";
  engine::ArtifactEvent artifact;
  artifact.name = "refine_step";
  artifact.kind = "refine_entropy";
  artifact.shape = {2, positions};                                      // [2, S]
  artifact.data.assign(static_cast<std::size_t>(2 * positions), 0.5f);  // H_t, smoothed H_t
  artifact.meta_json = nlohmann::json{{"step", 0}, {"loss_ntp", 1.0}, {"loss_nsp", 2.0},
                                      {"loss", 3.0}, {"chunks", nlohmann::json::array()},
                                      {"rollouts", nlohmann::json::array()}}
                           .dump();
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

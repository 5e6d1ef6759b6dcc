// A checkpoint's trainer_state.json, as `train --resume` reads it back: what the trainer wrote
// round-trips, and a hand-edited or damaged step, seed or curve point is refused naming the file
// and the field, never cast (nlohmann's get<int64_t>() of 1e300 is undefined behaviour).

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/train/train_checkpoint.h"
#include "support/temp_dir.h"

using namespace studio;
using nlohmann::json;

namespace {

train::TrainingState writtenState() {
  train::TrainingState state;
  state.step = 40;
  state.seed = 7;
  state.seconds = 12.5;
  state.recipe = {{"steps", 100}};
  train::CurvePoint point;
  point.step = 40;
  point.loss = 2.5;
  point.tokens = 4096;
  point.metrics = {{"containment", 0.75}};
  state.curve.push_back(point);
  return state;
}

}  // namespace

TEST_CASE("trainer state: what the trainer writes reads back", "[train][checkpoint]") {
  const test::TempDir dir("trainer-state");
  dir.write(train::kTrainerStateFile, writtenState().toJson().dump());
  const train::TrainingState back = train::readTrainingState(dir.str());
  CHECK(back.step == 40);
  CHECK(back.seed == 7);
  CHECK(back.seconds == 12.5);
  CHECK(back.recipe == json{{"steps", 100}});
  REQUIRE(back.curve.size() == 1);
  CHECK(back.curve[0].tokens == 4096);
  CHECK(back.curve[0].metrics.at("containment") == 0.75);
}

TEST_CASE("trainer state: a step, seed or curve count that is not an integer is refused",
          "[train][checkpoint]") {
  const auto refused = [](const std::string& pointer, const json& value, const std::string& field) {
    const test::TempDir dir("trainer-state-bad");
    json stored = writtenState().toJson();
    stored[json::json_pointer(pointer)] = value;
    const std::string file = dir.write(train::kTrainerStateFile, stored.dump());
    INFO(pointer << " = " << value.dump());
    try {
      train::readTrainingState(dir.str());
      FAIL("read back");
    } catch (const Error& error) {
      CHECK(error.kind() == ErrorKind::Format);
      CHECK(error.where() == file);
      CHECK(error.field() == field);
      CHECK_THAT(error.detail(), Catch::Contains("got " + value.dump()));
    }
  };
  refused("/step", 1e300, "step");
  refused("/step", 40.5, "step");
  refused("/seed", -1, "seed");
  refused("/seed", 1e300, "seed");
  refused("/curve/0/step", -1e300, "curve.step");
  refused("/curve/0/tokens", "4096", "curve.tokens");
}

TEST_CASE("checkpoints: a folder named past any step count is not one", "[train][checkpoint]") {
  const test::TempDir dir("checkpoint-names");
  const std::string state = writtenState().toJson().dump();
  dir.write("checkpoint-000040/" + std::string(train::kTrainerStateFile), state);
  dir.write("checkpoint-99999999999999999999/" + std::string(train::kTrainerStateFile), state);
  const std::vector<std::string> found = train::listCheckpoints(dir.str());
  REQUIRE(found.size() == 1);
  CHECK(found[0] == dir.file("checkpoint-000040"));
}

#include "core/train/train_checkpoint.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "core/common/bounded_json.h"
#include "core/common/error.h"
#include "core/common/json_exact.h"

namespace studio::train {

namespace fs = std::filesystem;

const char* const kOptimizerFile = "optimizer.safetensors";
const char* const kLegacyOptimizerFile = "optimizer.pt";
const char* const kTrainerStateFile = "trainer_state.json";
const char* const kCurveFile = "curve.json";

nlohmann::json CurvePoint::toJson() const {
  nlohmann::json json = {{"step", step},         {"loss", loss},        {"answer_loss", answer_loss},
                         {"lr", learning_rate},  {"grad_norm", grad_norm}, {"tokens", tokens},
                         {"seconds", seconds}};
  if (!metrics.empty()) json["metrics"] = metrics;
  return json;
}

CurvePoint CurvePoint::fromJson(const nlohmann::json& json) {
  CurvePoint p;
  p.step = jsonAs<std::int64_t>(json.at("step"), "curve.step", "an integer");
  p.loss = json.at("loss").get<double>();
  p.answer_loss = json.at("answer_loss").get<double>();
  p.learning_rate = json.at("lr").get<double>();
  p.grad_norm = json.at("grad_norm").get<double>();
  p.tokens = jsonAs<std::int64_t>(json.at("tokens"), "curve.tokens", "an integer");
  p.seconds = json.at("seconds").get<double>();
  if (json.contains("metrics")) p.metrics = json.at("metrics").get<std::map<std::string, double>>();
  return p;
}

nlohmann::json TrainingState::toJson() const {
  nlohmann::json points = nlohmann::json::array();
  for (const CurvePoint& p : curve) points.push_back(p.toJson());
  return {{"step", step}, {"seed", seed}, {"seconds", seconds}, {"recipe", recipe},
          {"curve", points}};
}

TrainingState TrainingState::fromJson(const nlohmann::json& json, const std::string& file) {
  TrainingState state;
  for (const char* key : {"step", "seed", "seconds", "recipe", "curve"}) {
    if (!json.contains(key)) throwError(ErrorKind::Format, file, key, "is missing");
  }
  try {
    state.step = jsonAs<std::int64_t>(json.at("step"), "step", "an integer");
    state.seed = jsonAs<std::uint64_t>(json.at("seed"), "seed", "a non-negative integer");
    state.seconds = json.at("seconds").get<double>();
    state.recipe = json.at("recipe");
    for (const auto& point : json.at("curve")) state.curve.push_back(CurvePoint::fromJson(point));
  } catch (const nlohmann::json::exception& error) {
    throwError(ErrorKind::Format, file, "", std::string("malformed: ") + error.what());
  } catch (const Error& error) {  // an integer field that is not one (json_exact.h)
    throwError(ErrorKind::Format, file, error.field(), "malformed: " + error.detail());
  }
  return state;
}

std::string checkpointFolderName(std::int64_t step) {
  char name[40];
  std::snprintf(name, sizeof name, "checkpoint-%06lld", static_cast<long long>(step));
  return name;
}

std::vector<std::string> listCheckpoints(const std::string& out_dir) {
  std::vector<std::pair<std::int64_t, std::string>> found;
  std::error_code ec;
  if (!fs::is_directory(out_dir, ec)) return {};
  for (const auto& entry : fs::directory_iterator(out_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("checkpoint-", 0) != 0 || name.size() <= 11) continue;
    const std::string digits = name.substr(11);
    if (!std::all_of(digits.begin(), digits.end(), ::isdigit)) continue;  // skips *.tmp
    std::int64_t step = 0;
    if (std::from_chars(digits.data(), digits.data() + digits.size(), step).ec != std::errc()) {
      continue;  // past any step count
    }
    if (!fs::exists(entry.path() / kTrainerStateFile)) continue;
    found.emplace_back(step, entry.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> dirs;
  for (auto& item : found) dirs.push_back(std::move(item.second));
  return dirs;
}

std::optional<std::string> latestCheckpoint(const std::string& out_dir) {
  const std::vector<std::string> all = listCheckpoints(out_dir);
  if (all.empty()) return std::nullopt;
  return all.back();
}

TrainingState readTrainingState(const std::string& dir) {
  const std::string file = (fs::path(dir) / kTrainerStateFile).string();
  return TrainingState::fromJson(readBoundedJsonFile(file, file), file);
}

}  // namespace studio::train

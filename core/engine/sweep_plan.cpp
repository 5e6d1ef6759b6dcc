#include "core/engine/sweep_plan.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/common/json_exact.h"
#include "core/engine/method.h"

namespace studio::engine {

using nlohmann::json;

namespace {

// object[key], or an error naming field.key. The key is a C string: given a std::string temporary,
// GCC 14 warned that the reference returned might be to it (-Wdangling-reference).
const json& require(const json& object, const char* key, const std::string& field) {
  if (!object.is_object() || !object.contains(key)) throwArgument(field + "." + key, "is missing");
  return object.at(key);
}

LrSelection lrSelectionFromJson(const json& in, const SweepConfig& config,
                                const std::string& root) {
  const std::string field = root + ".lr_selection";
  const json& selection = in.at("lr_selection");
  if (!selection.is_object()) throwArgument(field, "must be an object");
  LrSelection out;
  out.label = jsonAs<std::string>(require(selection, "method", field), field + ".method",
                                  "a method entry's label");
  if (!config.rope) out.label += "+no_rope";  // as the entries' labels
  const auto method = std::find_if(config.methods.begin(), config.methods.end(),
                                   [&](const SweepMethod& m) { return m.label == out.label; });
  if (method == config.methods.end()) {
    throwArgument(field + ".method", "no method entry is labelled '" + out.label + "'");
  }
  const Method& registered = MethodRegistry::instance().get(method->method);
  const auto params = registered.params();
  if (std::none_of(params.begin(), params.end(),
                   [](const ParamSpec& p) { return p.name == "lr"; })) {
    throwArgument(field + ".method", "'" + method->method + "' has no lr parameter");
  }
  out.lrs = jsonAs<std::vector<double>>(require(selection, "lrs", field), field + ".lrs",
                                        "an array of learning rates");
  if (out.lrs.empty()) throwArgument(field + ".lrs", "needs at least one learning rate");
  for (const double lr : out.lrs) {
    try {
      resolveParams(method->method, params, {{"lr", lr}});
    } catch (const Error& error) {
      throwArgument(field + ".lrs", error.detail());
    }
  }
  out.validation_seeds = jsonAs<std::vector<std::uint64_t>>(
      require(selection, "validation_seeds", field), field + ".validation_seeds",
      "an array of non-negative integers");
  if (out.validation_seeds.empty()) {
    throwArgument(field + ".validation_seeds", "needs at least one seed");
  }
  for (const std::uint64_t seed : out.validation_seeds) {
    if (std::find(config.seeds.begin(), config.seeds.end(), seed) != config.seeds.end()) {
      throwArgument(field + ".validation_seeds", "seed " + std::to_string(seed) +
                                                     " is also a test seed; the validation "
                                                     "split must be held out");
    }
  }
  return out;
}

// Room for the item's longest reference answer (a byte is at most one token) and a little more.
std::int64_t answerRoom(const task::TaskItem& item) {
  std::int64_t room = 0;
  for (const std::string& answer : item.answers) {
    room = std::max<std::int64_t>(room, static_cast<std::int64_t>(answer.size()) + 8);
  }
  return room;
}

}  // namespace

SweepConfig SweepConfig::fromJson(const json& in) {
  const std::string root = "sweep";
  if (!in.is_object()) throwArgument(root, "the sweep configuration must be a JSON object");
  SweepConfig config;
  config.model = jsonAs<std::string>(require(in, "model", root), root + ".model", "a folder path");
  config.device =
      jsonAs<std::string>(in.value("device", json("cpu")), root + ".device", "a string");
  config.dtype = jsonAs<std::string>(in.value("dtype", json("")), root + ".dtype", "a string");
  config.max_answer_tokens =
      jsonAs<std::int64_t>(in.value("max_answer_tokens", json(kPaperAnswerTokens)),
                           root + ".max_answer_tokens", "an integer");
  config.budget_think_tokens = jsonAs<std::int64_t>(in.value("budget_think_tokens", json(0)),
                                                    root + ".budget_think_tokens", "an integer");
  if (config.budget_think_tokens < 0) throwArgument(root + ".budget_think_tokens", "must be >= 0");
  config.rope = jsonAs<bool>(in.value("rope", json(true)), root + ".rope", "true or false");
  if (in.contains("seeds")) {
    config.seeds = jsonAs<std::vector<std::uint64_t>>(in.at("seeds"), root + ".seeds",
                                                      "an array of non-negative integers");
  }
  if (config.seeds.empty()) throwArgument(root + ".seeds", "needs at least one seed");

  const json& tasks = require(in, "tasks", root);
  if (!tasks.is_array() || tasks.empty()) throwArgument(root + ".tasks", "needs a non-empty array");
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::string field = root + ".tasks[" + std::to_string(i) + "]";
    SweepTask task;
    task.task =
        jsonAs<std::string>(require(tasks[i], "task", field), field + ".task", "a task name");
    const task::TaskGenerator* generator = task::TaskRegistry::instance().generator(task.task);
    if (!generator) throwArgument(field + ".task", "no generator named '" + task.task + "'");
    task.length_param = jsonAs<std::string>(require(tasks[i], "length_param", field),
                                            field + ".length_param", "a parameter name");
    bool known = false;
    for (const ParamSpec& spec : generator->params()) known = known || spec.name == task.length_param;
    if (!known) {
      throwArgument(field + ".length_param",
                    "'" + task.length_param + "' is not a parameter of " + task.task);
    }
    task.lengths = jsonAs<std::vector<std::int64_t>>(require(tasks[i], "lengths", field),
                                                     field + ".lengths", "an array of integers");
    if (task.lengths.empty()) throwArgument(field + ".lengths", "needs at least one length");
    task.params = tasks[i].value("params", json::object());
    if (!task.params.is_object()) throwArgument(field + ".params", "must be an object");
    config.tasks.push_back(std::move(task));
  }

  const json& methods = require(in, "methods", root);
  if (!methods.is_array() || methods.empty()) {
    throwArgument(root + ".methods", "needs a non-empty array");
  }
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const std::string field = root + ".methods[" + std::to_string(i) + "]";
    SweepMethod method;
    method.method = jsonAs<std::string>(require(methods[i], "method", field), field + ".method",
                                        "a method name");
    if (!MethodRegistry::instance().find(method.method)) {
      MethodRegistry::instance().get(method.method);  // throws, listing the known methods
    }
    method.label = jsonAs<std::string>(methods[i].value("label", json(method.method)),
                                       field + ".label", "a string");
    if (!config.rope) method.label += "+no_rope";
    method.params = methods[i].value("params", json::object());
    if (!method.params.is_object()) throwArgument(field + ".params", "must be an object");
    for (const SweepMethod& other : config.methods) {
      if (other.label == method.label) {
        throwArgument(field + ".label", "'" + method.label + "' is used twice; give each a label");
      }
    }
    config.methods.push_back(std::move(method));
  }
  if (in.contains("lr_selection")) config.lr_selection = lrSelectionFromJson(in, config, root);
  return config;
}

std::string SweepCell::key() const {
  return task->task + "|" + task->length_param + "=" + std::to_string(length) +
         "|seed=" + std::to_string(seed) + "|" + method->label;
}

std::vector<SweepCell> expandSweep(const SweepConfig& config) {
  std::vector<SweepCell> cells;
  for (const SweepTask& task : config.tasks) {
    for (const std::int64_t length : task.lengths) {
      for (const std::uint64_t seed : config.seeds) {
        for (const SweepMethod& method : config.methods) {
          SweepCell cell;
          cell.index = cells.size();
          cell.task = &task;
          cell.length = length;
          cell.method = &method;
          cell.seed = seed;
          cells.push_back(cell);
        }
      }
    }
  }
  return cells;
}

std::vector<SweepCell> shardOf(const std::vector<SweepCell>& cells, const std::string& shard) {
  const auto slash = shard.find('/');
  std::size_t index = 0, count = 0;
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    std::size_t used = 0;
    index = std::stoul(shard.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("index");
    count = std::stoul(shard.substr(slash + 1), &used);
    if (used != shard.size() - slash - 1) throw std::invalid_argument("count");
  } catch (const std::exception&) {
    throwArgument("--shard", "'" + shard + "' is not i/n");
  }
  if (count == 0 || index >= count) throwArgument("--shard", "'" + shard + "' needs 0 <= i < n");
  std::vector<SweepCell> out;
  for (const SweepCell& cell : cells) {
    if (cell.index % count == index) out.push_back(cell);
  }
  return out;
}

RunSpec specFromItem(const task::TaskItem& item) {
  RunSpec spec;
  spec.document_source = "task:" + item.task;
  spec.document_text = item.context;
  spec.question = item.question;
  spec.task_description = item.task_description;
  spec.target_chars = item.targets;
  spec.reference_answers = item.answers;
  spec.scorer = item.scorer;
  spec.task = item.task;
  spec.task_meta = taskMetaOfItem(item.meta);
  spec.task_meta["item_id"] = item.id;
  spec.max_answer_tokens = std::max(spec.max_answer_tokens, answerRoom(item));
  return spec;
}

RunSpec cellSpec(const SweepConfig& config, const SweepCell& cell, const task::TaskItem& item) {
  RunSpec spec = specFromItem(item);
  spec.model_path = config.model;
  spec.device = config.device;
  spec.dtype = config.dtype;
  spec.method = cell.method->method;
  spec.params = cell.method->params;
  spec.seed = cell.seed;
  spec.rope = config.rope;
  spec.max_answer_tokens = std::max(config.max_answer_tokens, answerRoom(item));
  spec.task_meta["sweep_key"] = cell.key();
  spec.task_meta["sweep_label"] = cell.method->label;
  spec.task_meta["sweep_length"] = cell.length;
  if (!config.validation_of.empty()) spec.task_meta["lr_validation_of"] = config.validation_of;
  const auto selected = config.selected_lrs.find(cell.task->task);
  if (config.lr_selection && cell.method->label == config.lr_selection->label &&
      selected != config.selected_lrs.end()) {
    spec.params["lr"] = selected->second;
    spec.task_meta["selected_lr"] = selected->second;
  }
  return spec;
}

}  // namespace studio::engine

#include "core/train/train_recipe.h"

#include <filesystem>
#include <set>
#include <sstream>

#include "core/common/bounded_json.h"
#include "core/common/error.h"
#include "core/common/json_exact.h"

namespace studio::train {

namespace {

namespace fs = std::filesystem;

// Field access with errors that name the recipe file and the field's path.
class Fields {
 public:
  Fields(const nlohmann::json& json, std::string file, std::string path)
      : m_json(json), m_file(std::move(file)), m_path(std::move(path)) {
    if (!m_json.is_object()) fail("", "must be a JSON object");
  }

  void allowOnly(const std::set<std::string>& keys) const {
    for (const auto& item : m_json.items()) {
      if (!keys.count(item.key())) fail(item.key(), "is not a recipe field here");
    }
  }

  bool has(const std::string& key) const { return m_json.contains(key); }
  const nlohmann::json& at(const std::string& key) const { return m_json.at(key); }

  double number(const std::string& key, double fallback, double lo, double hi) const {
    if (!has(key)) return fallback;
    const auto& v = m_json.at(key);
    if (!v.is_number()) fail(key, "must be a number");
    const double x = v.get<double>();
    if (!(x >= lo && x <= hi)) {
      fail(key, "is " + v.dump() + ", must be in [" + fmt(lo) + ", " + fmt(hi) + "]");
    }
    return x;
  }

  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t lo,
                       std::int64_t hi) const {
    if (!has(key)) return fallback;
    const auto& v = m_json.at(key);
    if (!v.is_number_integer()) fail(key, "must be an integer");
    // An integer past 64 bits (get<>() would wrap it) is out of range like any other.
    if (!holdsExactly<std::int64_t>(v) || v.get<std::int64_t>() < lo ||
        v.get<std::int64_t>() > hi) {
      fail(key, "is " + v.dump() + ", must be in [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]");
    }
    return v.get<std::int64_t>();
  }

  std::string string(const std::string& key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    const auto& v = m_json.at(key);
    if (!v.is_string()) fail(key, "must be a string");
    return v.get<std::string>();
  }

  std::string field(const std::string& key) const { return m_path.empty() ? key : m_path + "." + key; }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throwError(ErrorKind::Config, m_file, key.empty() ? m_path : field(key), what);
  }

 private:
  static std::string fmt(double x) {
    std::ostringstream out;
    out << x;
    return out.str();
  }

  const nlohmann::json& m_json;
  std::string m_file;
  std::string m_path;
};

std::string resolvePath(const std::string& path, const std::string& base_dir) {
  const fs::path p(path);
  return p.is_absolute() ? path : (fs::path(base_dir) / p).lexically_normal().string();
}


MixtureSource parseSource(const nlohmann::json& json, const std::string& file,
                          const std::string& path, const std::string& base_dir,
                          std::int64_t seq_len) {
  const Fields f(json, file, path);
  f.allowOnly({"task", "weight", "params", "ranges", "text_files", "window"});
  MixtureSource source;
  source.weight = f.number("weight", 1.0, 0.0, 1e9);
  if (source.weight <= 0) f.fail("weight", "must be positive");
  source.task = f.string("task", "");
  if (f.has("text_files") == !source.task.empty()) {
    f.fail("", "needs exactly one of \"task\" and \"text_files\"");
  }
  if (f.has("text_files")) {
    const auto& files = f.at("text_files");
    if (!files.is_array() || files.empty()) f.fail("text_files", "must be a non-empty array");
    for (const auto& name : files) {
      if (!name.is_string()) f.fail("text_files", "must hold file paths (strings)");
      source.text_files.push_back(resolvePath(name.get<std::string>(), base_dir));
    }
    if (f.has("params") || f.has("ranges")) f.fail("", "text files take no params or ranges");
    source.window = f.integer("window", 0, 0, seq_len);
    if (source.window == 1) f.fail("window", "must be at least 2 tokens (or 0 for data.seq_len)");
    return source;
  }
  if (f.has("window")) f.fail("window", "applies to text_files only");
  if (f.has("params")) {
    if (!f.at("params").is_object()) f.fail("params", "must be an object");
    source.params = f.at("params");
  }
  if (f.has("ranges")) {
    const auto& ranges = f.at("ranges");
    if (!ranges.is_object()) f.fail("ranges", "must be an object of [lo, hi] pairs");
    for (const auto& item : ranges.items()) {
      const auto& r = item.value();
      if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number() ||
          r[0].get<double>() > r[1].get<double>()) {
        f.fail("ranges." + item.key(), "must be [lo, hi] with lo <= hi");
      }
      if (source.params.contains(item.key())) {
        f.fail("ranges." + item.key(), "is also given in params");
      }
      source.ranges[item.key()] = {r[0].get<double>(), r[1].get<double>()};
    }
  }
  return source;
}

RefineRecipe parseRefine(const nlohmann::json& json, const std::string& file) {
  const Fields f(json, file, "refine");
  std::set<std::string> allowed = {"preset", "nested"};
  for (const std::string& field : refineConfigFields()) allowed.insert(field);
  f.allowOnly(allowed);
  if (!f.has("preset")) f.fail("preset", "is missing (midtrain, posttrain or ttt)");
  RefineRecipe refine;
  refine.preset = f.string("preset", "");
  try {
    refine.config = refinePreset(refine.preset, "refine.preset");
    nlohmann::json overrides = json;
    overrides.erase("preset");
    overrides.erase("nested");
    refine.config = RefineConfig::fromJson(overrides, refine.config, "refine");
  } catch (const Error& error) {
    throwError(ErrorKind::Config, file, error.field(), error.detail());
  }
  refine.nested = refine.preset == "posttrain";
  if (f.has("nested")) {
    if (!f.at("nested").is_boolean()) f.fail("nested", "must be true or false");
    refine.nested = f.at("nested").get<bool>();
  }
  return refine;
}

SrTttStageRecipe parseSrTttStage(const nlohmann::json& json, const std::string& file,
                                 const TrainRecipe& recipe) {
  const Fields f(json, file, "sr_ttt");
  f.allowOnly({"stage", "oracle_weight", "answer_loss_weight", "force_insert", "curriculum",
               "curriculum_min_gap", "curriculum_random_fraction", "curriculum_anneal_fraction"});
  if (recipe.model.family != model::ModelFamily::SrTtt) {
    f.fail("", "is for model_type sr_ttt (the recipe's model is " +
                   std::string(model::modelFamilyName(recipe.model.family)) + ")");
  }
  SrTttStageRecipe s;
  s.stage = f.string("stage", "");
  if (s.stage != "backbone" && s.stage != "cache" && s.stage != "gates") {
    f.fail("stage", "is '" + s.stage + "', must be backbone, cache or gates");
  }
  if (s.stage == "backbone") {
    f.allowOnly({"stage"});
    return s;
  }
  if (recipe.init_from.empty()) {
    f.fail("stage", "'" + s.stage + "' trains on a frozen backbone: set init_from to the "
                    "backbone stage's checkpoint");
  }
  const auto flag = [&](const std::string& key, bool fallback) {
    if (!f.has(key)) return fallback;
    if (!f.at(key).is_boolean()) f.fail(key, "must be true or false");
    return f.at(key).get<bool>();
  };
  const bool v2 = s.stage == "cache";
  const model::SrTttSettings& m = recipe.model.sr_ttt;
  s.oracle_weight = f.number("oracle_weight", v2 ? m.oracle_weight : 0.0, 0.0, 1e3);
  s.answer_loss_weight = f.number("answer_loss_weight", v2 ? 1.0 : 0.0, 0.0, 1e3);
  s.force_insert = flag("force_insert", v2 && m.force_insert_needle_in_training);
  s.curriculum = flag("curriculum", v2);
  s.curriculum_min_gap = f.integer("curriculum_min_gap", s.curriculum_min_gap, 0, 1LL << 30);
  s.curriculum_random_fraction =
      f.number("curriculum_random_fraction", s.curriculum_random_fraction, 0.0, 1.0);
  s.curriculum_anneal_fraction =
      f.number("curriculum_anneal_fraction", s.curriculum_anneal_fraction, 1e-6, 1.0);
  if (s.stage == "gates" && (s.oracle_weight > 0 || s.answer_loss_weight > 0)) {
    f.fail(s.oracle_weight > 0 ? "oracle_weight" : "answer_loss_weight",
           "stage 'gates' is the paper's: the gates train on the recipe's loss alone");
  }
  return s;
}

}  // namespace

std::string MixtureSource::label() const { return task.empty() ? "text" : task; }

TrainRecipe TrainRecipe::fromJson(const nlohmann::json& json, const std::string& file,
                                  const std::string& base_dir) {
  const Fields f(json, file, "");
  f.allowOnly({"model", "model_config", "data", "optimizer", "steps", "batch_size", "seed",
               "device", "dtype", "threads", "checkpoint_every", "keep_checkpoints", "log_every",
               "init_from", "qk_norm_init", "objective", "refine", "sr_ttt", "comment"});
  TrainRecipe recipe;
  recipe.raw = json;

  if (f.has("model") == f.has("model_config")) {
    f.fail("", "needs exactly one of \"model\" (config.json fields) and \"model_config\" (a path)");
  }
  if (f.has("model")) {
    try {
      recipe.model = model::ModelConfig::fromJson(f.at("model"), file);
    } catch (const Error& error) {
      throwError(ErrorKind::Config, file, "model." + error.field(), error.detail());
    }
  } else {
    const std::string path = resolvePath(f.string("model_config", ""), base_dir);
    recipe.model = model::ModelConfig::fromJson(readBoundedJsonFile(path, path), path);
  }

  if (!f.has("data")) f.fail("data", "is missing");
  const Fields data(f.at("data"), file, "data");
  data.allowOnly({"seq_len", "context_loss_weight", "same_source_per_batch", "mixture"});
  recipe.data.seq_len = data.integer("seq_len", 1024, 8, 1 << 20);
  recipe.data.context_loss_weight = data.number("context_loss_weight", 0.0, 0.0, 1.0);
  if (data.has("same_source_per_batch")) {
    if (!data.at("same_source_per_batch").is_boolean()) {
      data.fail("same_source_per_batch", "must be true or false");
    }
    recipe.data.same_source_per_batch = data.at("same_source_per_batch").get<bool>();
  }
  if (!data.has("mixture") || !data.at("mixture").is_array() || data.at("mixture").empty()) {
    data.fail("mixture", "must be a non-empty array of sources");
  }
  const auto& mixture = data.at("mixture");
  for (std::size_t i = 0; i < mixture.size(); ++i) {
    recipe.data.mixture.push_back(
        parseSource(mixture[i], file, "data.mixture[" + std::to_string(i) + "]", base_dir,
                    recipe.data.seq_len));
  }

  if (f.has("optimizer")) {
    const Fields opt(f.at("optimizer"), file, "optimizer");
    opt.allowOnly({"lr", "min_lr_ratio", "warmup_steps", "weight_decay", "beta1", "beta2", "eps",
                   "clip"});
    OptimizerRecipe& o = recipe.optimizer;
    o.lr = opt.number("lr", o.lr, 0.0, 10.0);
    o.min_lr_ratio = opt.number("min_lr_ratio", o.min_lr_ratio, 0.0, 1.0);
    o.warmup_steps = opt.integer("warmup_steps", o.warmup_steps, 0, 1LL << 40);
    o.weight_decay = opt.number("weight_decay", o.weight_decay, 0.0, 10.0);
    o.beta1 = opt.number("beta1", o.beta1, 0.0, 0.999999);
    o.beta2 = opt.number("beta2", o.beta2, 0.0, 0.999999);
    o.eps = opt.number("eps", o.eps, 0.0, 1.0);
    o.clip = opt.number("clip", o.clip, 0.0, 1e9);
  }

  recipe.steps = f.integer("steps", recipe.steps, 1, 1LL << 40);
  recipe.batch_size = f.integer("batch_size", recipe.batch_size, 1, 1 << 16);
  recipe.seed = static_cast<std::uint64_t>(f.integer("seed", 1, 0, INT64_MAX));
  recipe.device = f.string("device", recipe.device);
  recipe.dtype = f.string("dtype", recipe.dtype);
  if (!recipe.dtype.empty() && recipe.dtype != "f32" && recipe.dtype != "bf16") {
    f.fail("dtype", "is '" + recipe.dtype + "', must be f32 or bf16");
  }
  if (recipe.dtype == "bf16" && recipe.device == "cpu") {
    f.fail("dtype", "bf16 training needs device cuda (the CPU trains in f32)");
  }
  recipe.threads = static_cast<int>(f.integer("threads", 0, 0, 1024));
  recipe.checkpoint_every = f.integer("checkpoint_every", recipe.checkpoint_every, 0, 1LL << 40);
  recipe.keep_checkpoints = f.integer("keep_checkpoints", recipe.keep_checkpoints, 0, 1 << 20);
  recipe.log_every = f.integer("log_every", recipe.log_every, 1, 1LL << 40);
  recipe.init_from = f.string("init_from", "");
  recipe.qk_norm_init = f.number("qk_norm_init", 1.0, 0.01, 100.0);
  if (f.has("qk_norm_init")) {
    if (!recipe.init_from.empty()) {
      f.fail("qk_norm_init", "sets random weights' q/k norms; init_from brings its own");
    }
    if (!recipe.model.qk_norm) f.fail("qk_norm_init", "the model has no q_norm/k_norm");
  }
  recipe.objective = f.string("objective", "ntp");
  if (recipe.objective != "ntp" && recipe.objective != "refine") {
    f.fail("objective", "is '" + recipe.objective + "', must be ntp or refine");
  }
  if (f.has("refine") != (recipe.objective == "refine")) {
    f.fail(f.has("refine") ? "refine" : "objective",
           "objective \"refine\" and a \"refine\" block go together");
  }
  if (recipe.objective == "refine") {
    recipe.refine = parseRefine(f.at("refine"), file);
    if (f.has("optimizer") && f.at("optimizer").contains("lr")) {
      f.fail("optimizer.lr", "with objective refine the learning rate is refine.lr (its preset's "
                             "unless the refine block sets it)");
    }
    recipe.optimizer.lr = recipe.refine.config.lr;
  }
  if (f.has("sr_ttt")) {
    if (recipe.objective != "ntp") f.fail("sr_ttt", "goes with objective ntp");
    recipe.sr_ttt = parseSrTttStage(f.at("sr_ttt"), file, recipe);
  }
  if (recipe.optimizer.warmup_steps > recipe.steps) {
    throwError(ErrorKind::Config, file, "optimizer.warmup_steps",
               "is longer than the run (" + std::to_string(recipe.steps) + " steps)");
  }
  return recipe;
}

TrainRecipe loadRecipe(const std::string& path) {
  const nlohmann::json json = readBoundedJsonFile(path, path);
  const std::string base = fs::path(path).parent_path().string();
  return TrainRecipe::fromJson(json, path, base.empty() ? "." : base);
}

}  // namespace studio::train

#include "core/model/model_config.h"

#include <cmath>
#include <limits>
#include <optional>

#include "core/common/error.h"
#include "core/common/bounded_json.h"
#include "core/model/config_fields.h"
#include "core/model/gemma_config.h"
#include "core/model/layer_types.h"
#include "core/model/sr_ttt_config.h"
#include "core/model/ttt_config.h"

namespace studio::model {

namespace {

using json = nlohmann::json;

// `where` is "rope_scaling" or, in transformers 5 configs, "rope_parameters".
RopeScaling parseRopeScaling(const json& object, const std::string& file,
                             const std::string& where) {
  if (!object.is_object()) {
    configError(file, where, "must be an object or null, got " + describeJson(object));
  }
  const FieldReader f(object, file, where + ".");
  // transformers reads `rope_type` and falls back to the older `type`.
  const std::string type_key = f.find("rope_type") ? "rope_type" : "type";
  const auto type = f.string(type_key);
  if (!type) {
    configError(file, where + ".rope_type", "missing (expected default, linear, llama3 or yarn)");
  }

  RopeScaling scaling;
  if (*type == "default") return scaling;
  auto positiveFactor = [&](const std::string& key) {
    const double value = f.requiredNumber(key);
    if (value <= 0) configError(file, f.name(key), "must be positive, got " + formatNumber(value));
    return value;
  };
  if (*type == "linear") {
    scaling.type = RopeScaling::Type::Linear;
    scaling.factor = positiveFactor("factor");
  } else if (*type == "llama3") {
    scaling.type = RopeScaling::Type::Llama3;
    scaling.factor = positiveFactor("factor");
    scaling.low_freq_factor = positiveFactor("low_freq_factor");
    scaling.high_freq_factor = positiveFactor("high_freq_factor");
    scaling.original_max_position_embeddings =
        f.requiredInteger("original_max_position_embeddings", 1, kMaxPositions);
  } else if (*type == "yarn") {
    scaling.type = RopeScaling::Type::Yarn;
    scaling.factor = positiveFactor("factor");
    if (f.find("beta_fast")) scaling.beta_fast = positiveFactor("beta_fast");
    if (f.find("beta_slow")) scaling.beta_slow = positiveFactor("beta_slow");
    if (f.find("attention_factor")) scaling.attention_factor = positiveFactor("attention_factor");
    scaling.original_max_position_embeddings =
        f.integer("original_max_position_embeddings", 1, kMaxPositions).value_or(0);
    // DeepSeek's variant derives the attention factor from these; running without them would
    // scale attention differently from transformers.
    for (const char* key : {"mscale", "mscale_all_dim"}) {
      if (f.find(key)) {
        throwError(ErrorKind::Unsupported, file, f.name(key),
                   "yarn with mscale (DeepSeek's variant) is not supported");
      }
    }
  } else {
    throwError(ErrorKind::Unsupported, file, f.name(type_key),
               *type + " is not supported (supported: default, linear, llama3, yarn)");
  }
  return scaling;
}

json ropeScalingToJson(const RopeScaling& scaling) {
  switch (scaling.type) {
    case RopeScaling::Type::None: return nullptr;
    case RopeScaling::Type::Linear: return {{"rope_type", "linear"}, {"factor", scaling.factor}};
    case RopeScaling::Type::Llama3:
      return {{"rope_type", "llama3"},
              {"factor", scaling.factor},
              {"low_freq_factor", scaling.low_freq_factor},
              {"high_freq_factor", scaling.high_freq_factor},
              {"original_max_position_embeddings", scaling.original_max_position_embeddings}};
    case RopeScaling::Type::Yarn: {
      json out = {{"rope_type", "yarn"},
                  {"factor", scaling.factor},
                  {"beta_fast", scaling.beta_fast},
                  {"beta_slow", scaling.beta_slow}};
      if (scaling.attention_factor > 0) out["attention_factor"] = scaling.attention_factor;
      if (scaling.original_max_position_embeddings > 0) {
        out["original_max_position_embeddings"] = scaling.original_max_position_embeddings;
      }
      return out;
    }
  }
  return nullptr;
}

std::int64_t checkedMul(std::int64_t a, std::int64_t b, const std::string& file) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out) || out > kMaxParameters) {
    configError(file, "", "the sizes describe more than 2^50 parameters");
  }
  return out;
}

std::int64_t checkedAdd(std::int64_t a, std::int64_t b, const std::string& file) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out) || out > kMaxParameters) {
    configError(file, "", "the sizes describe more than 2^50 parameters");
  }
  return out;
}

// The sum of the architecture's tensor sizes (TTT models, whose layers have many small tensors).
std::int64_t countShapes(const ModelConfig& c, const std::string& file) {
  std::int64_t total = 0;
  for (const auto& [name, shape] : c.expectedTensorShapes()) {
    std::int64_t size = 1;
    for (std::int64_t dim : shape) size = checkedMul(size, dim, file);
    total = checkedAdd(total, size, file);
  }
  return total;
}

std::int64_t countParameters(const ModelConfig& c, const std::string& file) {
  if (c.family == ModelFamily::Ttt || c.family == ModelFamily::SrTtt) return countShapes(c, file);
  const std::int64_t H = c.hidden_size, I = c.intermediate_size, hd = c.head_dim;
  const std::int64_t q = checkedMul(c.num_attention_heads, hd, file);
  const std::int64_t kv = checkedMul(c.num_key_value_heads, hd, file);
  std::int64_t layer = (c.sandwich_norms ? 4 : 2) * H;                        // norms
  layer = checkedAdd(layer, checkedMul(checkedAdd(q, 2 * kv, file), H, file), file);  // q, k, v
  layer = checkedAdd(layer, checkedMul(H, q, file), file);                    // o
  layer = checkedAdd(layer, checkedMul(checkedMul(3, I, file), H, file), file);  // gate, up, down
  if (c.attention_bias) layer = checkedAdd(layer, q + 2 * kv, file);
  if (c.o_proj_bias) layer = checkedAdd(layer, H, file);
  if (c.qk_norm) layer = checkedAdd(layer, 2 * hd, file);
  const std::int64_t embedding = checkedMul(c.vocab_size, H, file);
  std::int64_t total = checkedMul(layer, c.num_hidden_layers, file);
  total = checkedAdd(total, embedding, file);
  total = checkedAdd(total, H, file);  // final norm
  if (!c.tie_word_embeddings) total = checkedAdd(total, embedding, file);
  return total;
}

std::int64_t defaultMaxPositions(ModelFamily family) {
  return family == ModelFamily::Llama ? 2048 : 32768;
}

// Throws studio::Error (Unsupported) naming the first sliding layer of `layer_types`, if any.
void refuseSlidingLayers(const std::optional<std::vector<bool>>& layer_types,
                         const std::string& file, const std::string& why) {
  for (std::size_t i = 0; layer_types && i < layer_types->size(); ++i) {
    if ((*layer_types)[i]) {
      throwError(ErrorKind::Unsupported, file, "layer_types[" + std::to_string(i) + "]", why);
    }
  }
}

// Qwen2's and Qwen3's sliding window (transformers' Qwen2Config): with use_sliding_window, the
// layers from max_window_layers (default 28) on see the last sliding_window (default 4096) keys,
// unless layer_types names the sliding layers itself; `"sliding_window": null` turns it off.
void readQwenSlidingWindow(const json& in, const FieldReader& f,
                           const std::optional<std::vector<bool>>& layer_types, ModelConfig& c) {
  if (in.contains("sliding_window") && in.at("sliding_window").is_null()) {
    refuseSlidingLayers(layer_types, f.file(),
                        "sliding_attention needs a sliding_window (it is null)");
    return;
  }
  c.sliding_window = f.integer("sliding_window", 1, kMaxPositions).value_or(4096);
  if (layer_types) {
    c.sliding_layers = *layer_types;
    return;
  }
  const std::int64_t first = f.integer("max_window_layers", 0, kMaxLayers).value_or(28);
  for (std::int64_t i = 0; i < c.num_hidden_layers; ++i) c.sliding_layers.push_back(i >= first);
}

}  // namespace

const char* modelFamilyName(ModelFamily family) {
  switch (family) {
    case ModelFamily::Qwen3: return "qwen3";
    case ModelFamily::Qwen2: return "qwen2";
    case ModelFamily::Llama: return "llama";
    case ModelFamily::Gemma: return "gemma";
    case ModelFamily::Ttt: return "ttt";
    case ModelFamily::SrTtt: return "sr_ttt";
  }
  return "unknown";
}

const char* mixerKindName(MixerKind kind) {
  switch (kind) {
    case MixerKind::Attention: return "attention";
    case MixerKind::TttLinear: return "TTT-Linear";
    case MixerKind::TttMlp: return "TTT-MLP";
    case MixerKind::SrTtt: return "SR-TTT";
  }
  return "unknown";
}

MixerKind ModelConfig::mixer(int layer) const {
  if (layer_mixers.empty()) {
    if (family == ModelFamily::SrTtt) return MixerKind::SrTtt;
    return family == ModelFamily::Ttt ? ttt.layer_type : MixerKind::Attention;
  }
  return layer_mixers.at(static_cast<std::size_t>(layer));
}

std::int64_t ModelConfig::attentionWindow(int layer) const {
  if (sliding_window <= 0) return 0;
  if (sliding_layers.empty()) return sliding_window;
  return sliding_layers.at(static_cast<std::size_t>(layer)) ? sliding_window : 0;
}

double ModelConfig::attentionScale() const {
  const double scalar =
      query_pre_attn_scalar > 0 ? query_pre_attn_scalar : static_cast<double>(head_dim);
  return 1.0 / std::sqrt(scalar);
}

int ModelConfig::attentionLayerCount() const {
  int count = 0;
  for (int i = 0; i < num_hidden_layers; ++i) count += mixer(i) == MixerKind::Attention;
  return count;
}

const char* ropeScalingTypeName(RopeScaling::Type type) {
  switch (type) {
    case RopeScaling::Type::None: return "none";
    case RopeScaling::Type::Linear: return "linear";
    case RopeScaling::Type::Llama3: return "llama3";
    case RopeScaling::Type::Yarn: return "yarn";
  }
  return "unknown";
}

ModelConfig ModelConfig::fromJson(const nlohmann::json& in, const std::string& file) {
  if (!in.is_object()) configError(file, "", "must be a JSON object, got " + describeJson(in));
  const FieldReader f(in, file, "");
  ModelConfig c;
  c.raw = in;

  const auto model_type = f.string("model_type");
  if (!model_type) {
    configError(file, "model_type",
                "missing (expected qwen3, qwen2, llama, mistral, phi3, gemma, gemma2, gemma3_text, "
                "ttt or sr_ttt)");
  }
  if (*model_type == "ttt") return tttConfigFromJson(in, file);
  if (*model_type == "sr_ttt") return srTttConfigFromJson(in, file);
  c.model_type = *model_type;
  if (c.model_type == "qwen3") {
    c.family = ModelFamily::Qwen3;
  } else if (c.model_type == "qwen2") {
    c.family = ModelFamily::Qwen2;
  } else if (c.model_type == "llama" || c.model_type == "mistral" || c.model_type == "phi3") {
    // Mistral is Llama's architecture with a sliding window; Phi-3 stores its projections fused.
    c.family = ModelFamily::Llama;
    c.fused_projections = c.model_type == "phi3";
  } else if (isGemmaModelType(c.model_type)) {
    c.family = ModelFamily::Gemma;
  } else if (c.model_type == "gemma3" || c.model_type == "gemma3n") {
    throwError(ErrorKind::Unsupported, file, "model_type",
               c.model_type +
                   " is a multimodal checkpoint; the studio runs Gemma 3's text model "
                   "(model_type gemma3_text, Gemma3ForCausalLM)");
  } else {
    throwError(ErrorKind::Unsupported, file, "model_type",
               c.model_type +
                   " is not supported (supported: qwen3, qwen2, llama, mistral, phi3, gemma, "
                   "gemma2, gemma3_text, ttt, sr_ttt)");
  }

  // The sizes are required: transformers always writes them, and its defaults (a 7B model) would
  // only turn a truncated config.json into a confusing list of shape mismatches.
  c.vocab_size = f.requiredInteger("vocab_size", 1, kMaxVocab);
  c.hidden_size = f.requiredInteger("hidden_size", 1, kMaxWidth);
  c.intermediate_size = f.requiredInteger("intermediate_size", 1, kMaxWidth);
  c.num_hidden_layers = f.requiredInteger("num_hidden_layers", 1, kMaxLayers);
  c.num_attention_heads = f.requiredInteger("num_attention_heads", 1, kMaxHeads);
  c.num_key_value_heads =
      f.integer("num_key_value_heads", 1, kMaxHeads).value_or(c.num_attention_heads);
  if (const auto head_dim = f.integer("head_dim", 1, kMaxHeadDim)) {
    c.head_dim = *head_dim;
  } else if (c.hidden_size % c.num_attention_heads != 0) {
    configError(file, "head_dim",
                "missing, and hidden_size " + std::to_string(c.hidden_size) +
                    " is not divisible by num_attention_heads " +
                    std::to_string(c.num_attention_heads));
  } else {
    c.head_dim = c.hidden_size / c.num_attention_heads;
  }
  c.max_position_embeddings = f.integer("max_position_embeddings", 1, kMaxPositions)
                                  .value_or(defaultMaxPositions(c.family));
  c.rms_norm_eps = f.number("rms_norm_eps").value_or(1e-6);

  // transformers 5 moves rope_theta and the scaling into `rope_parameters`; older files have
  // `rope_theta` and `rope_scaling` at the top level. Both are read, the older names first.
  const json* rope_parameters = f.find("rope_parameters");
  if (rope_parameters && !rope_parameters->is_object()) {
    configError(file, "rope_parameters",
                "must be an object or null, got " + describeJson(*rope_parameters));
  }
  // Per layer type (transformers 5's Gemma 3): the global layers' parameters here, the sliding
  // layers' in gemma_config.cpp.
  std::string rope_name = "rope_parameters";
  if (rope_parameters && rope_parameters->contains("full_attention")) {
    rope_parameters = &rope_parameters->at("full_attention");
    rope_name += ".full_attention";
    if (!rope_parameters->is_object()) {
      configError(file, rope_name, "must be an object, got " + describeJson(*rope_parameters));
    }
  }
  if (const auto theta = f.number("rope_theta")) {
    c.rope_theta = *theta;
  } else if (rope_parameters) {
    c.rope_theta =
        FieldReader(*rope_parameters, file, rope_name + ".").number("rope_theta").value_or(10000.0);
  }
  if (const json* scaling = f.find("rope_scaling")) {
    c.rope_scaling = parseRopeScaling(*scaling, file, "rope_scaling");
  } else if (rope_parameters) {
    if (rope_parameters->contains("rope_type") || rope_parameters->contains("type")) {
      c.rope_scaling = parseRopeScaling(*rope_parameters, file, rope_name);
    }
  }

  c.tie_word_embeddings =
      f.boolean("tie_word_embeddings").value_or(c.family == ModelFamily::Gemma);
  if (c.family == ModelFamily::Qwen2) {
    // Qwen2's attention always has q/k/v biases and no o_proj bias, whatever the file says.
    c.attention_bias = true;
    c.o_proj_bias = false;
  } else if (c.model_type == "mistral" || c.model_type == "phi3") {
    // Their projections never have biases, whatever the file says (as in transformers).
    c.attention_bias = false;
    c.o_proj_bias = false;
  } else {
    c.attention_bias = f.boolean("attention_bias").value_or(false);
    c.o_proj_bias = c.attention_bias;
  }
  c.qk_norm = c.family == ModelFamily::Qwen3;
  c.hidden_act = f.string("hidden_act").value_or("silu");
  if (c.family == ModelFamily::Gemma) readGemmaFields(in, f, c);
  // transformers 4.56+ writes `dtype`; earlier versions `torch_dtype`.
  if (const auto dtype = f.string("torch_dtype")) {
    c.torch_dtype = *dtype;
  } else if (const auto new_dtype = f.string("dtype")) {
    c.torch_dtype = *new_dtype;
  }
  c.eos_token_ids = f.tokenIds("eos_token_id");
  c.bos_token_id = f.integer("bos_token_id", 0, kMaxTokenId).value_or(-1);

  // Architecture switches the forward pass does not implement: refusing them is better than
  // silently computing something else.
  const bool qwen = c.family == ModelFamily::Qwen2 || c.family == ModelFamily::Qwen3;
  const bool use_sliding_window = f.boolean("use_sliding_window").value_or(false);
  if (use_sliding_window && !qwen) {
    throwError(ErrorKind::Unsupported, file, "use_sliding_window",
               "is read for qwen2 and qwen3 only (" + c.model_type + " sets sliding_window alone)");
  }
  if (c.model_type == "mistral" || c.model_type == "phi3") {
    c.sliding_window = f.integer("sliding_window", 1, kMaxPositions).value_or(0);
  }
  if (const auto factor = f.number("partial_rotary_factor"); factor && *factor != 1.0) {
    throwError(ErrorKind::Unsupported, file, "partial_rotary_factor",
               formatNumber(*factor) + " is not supported (RoPE on every dimension only: 1)");
  }
  if (f.boolean("mlp_bias").value_or(false)) {
    throwError(ErrorKind::Unsupported, file, "mlp_bias", "MLP biases are not supported");
  }
  // Gemma's layer_types say which layers slide (readGemmaFields).
  if (c.family == ModelFamily::Gemma) {
    c.layer_mixers.assign(static_cast<std::size_t>(c.num_hidden_layers), MixerKind::Attention);
    c.validate(file);
    return c;
  }
  const std::optional<std::vector<bool>> layer_types = readSlidingLayerTypes(f);
  if (qwen && use_sliding_window) {
    readQwenSlidingWindow(in, f, layer_types, c);
  } else {
    // Qwen without use_sliding_window has no window to apply (transformers refuses to build
    // such a model); the other families here slide on every layer or none.
    refuseSlidingLayers(layer_types, file,
                        qwen ? "sliding_attention needs use_sliding_window: true"
                             : "sliding_attention is not supported for " + c.model_type +
                                   " (only full_attention)");
  }

  c.layer_mixers.assign(static_cast<std::size_t>(c.num_hidden_layers), MixerKind::Attention);
  c.validate(file);
  return c;
}

void ModelConfig::validate(const std::string& file) const {
  auto checkRange = [&](const char* field, std::int64_t value, std::int64_t max) {
    if (value < 1) configError(file, field, "must be positive, got " + std::to_string(value));
    if (value > max) {
      configError(file, field,
                  std::to_string(value) + " is larger than the limit " + std::to_string(max));
    }
  };
  checkRange("vocab_size", vocab_size, kMaxVocab);
  checkRange("hidden_size", hidden_size, kMaxWidth);
  checkRange("intermediate_size", intermediate_size, kMaxWidth);
  checkRange("num_hidden_layers", num_hidden_layers, kMaxLayers);
  checkRange("num_attention_heads", num_attention_heads, kMaxHeads);
  checkRange("num_key_value_heads", num_key_value_heads, kMaxHeads);
  checkRange("head_dim", head_dim, kMaxHeadDim);
  checkRange("max_position_embeddings", max_position_embeddings, kMaxPositions);
  if (num_attention_heads % num_key_value_heads != 0) {
    configError(file, "num_key_value_heads",
                std::to_string(num_key_value_heads) + " does not divide num_attention_heads " +
                    std::to_string(num_attention_heads));
  }
  if (head_dim % 2 != 0) {
    configError(file, "head_dim",
                std::to_string(head_dim) +
                    " must be even (rotary embeddings rotate pairs of dimensions)");
  }
  if (!(rms_norm_eps > 0) || !std::isfinite(rms_norm_eps)) {
    configError(file, "rms_norm_eps", "must be positive, got " + formatNumber(rms_norm_eps));
  }
  if (!(rope_theta > 0) || !std::isfinite(rope_theta)) {
    configError(file, "rope_theta", "must be positive, got " + formatNumber(rope_theta));
  }
  const RopeScaling& s = rope_scaling;
  if (s.type != RopeScaling::Type::None && (!(s.factor > 0) || !std::isfinite(s.factor))) {
    configError(file, "rope_scaling.factor", "must be positive, got " + formatNumber(s.factor));
  }
  if (s.type == RopeScaling::Type::Llama3) {
    if (!(s.low_freq_factor > 0) || !(s.high_freq_factor > s.low_freq_factor)) {
      configError(file, "rope_scaling.high_freq_factor",
                  formatNumber(s.high_freq_factor) + " must be larger than low_freq_factor " +
                      formatNumber(s.low_freq_factor) + " (and both positive)");
    }
    if (s.original_max_position_embeddings < 1) {
      configError(file, "rope_scaling.original_max_position_embeddings", "must be positive");
    }
  }
  if (s.type == RopeScaling::Type::Yarn && !(s.beta_fast > 0 && s.beta_slow > 0)) {
    configError(file, "rope_scaling.beta_fast", "beta_fast and beta_slow must be positive");
  }
  if (family == ModelFamily::Gemma) {
    validateGemma(*this, file);
  } else if (hidden_act != "silu" && hidden_act != "swish") {
    throwError(ErrorKind::Unsupported, file, "hidden_act",
               hidden_act + " is not supported (only silu)");
  }
  if (!sliding_layers.empty() &&
      static_cast<std::int64_t>(sliding_layers.size()) != num_hidden_layers) {
    configError(file, "layer_types",
                "lists " + std::to_string(sliding_layers.size()) +
                    " layers, num_hidden_layers is " + std::to_string(num_hidden_layers));
  }
  if (torch_dtype != "float32" && torch_dtype != "float16" && torch_dtype != "bfloat16") {
    configError(file, "torch_dtype",
                torch_dtype + " is not a model dtype the studio knows (float32, float16, bfloat16)");
  }
  for (std::size_t i = 0; i < eos_token_ids.size(); ++i) {
    if (eos_token_ids[i] < 0) {
      configError(file, "eos_token_id", "token ids must not be negative");
    }
  }
  if (!layer_mixers.empty() && static_cast<std::int64_t>(layer_mixers.size()) != num_hidden_layers) {
    configError(file, "layer_types",
                "lists " + std::to_string(layer_mixers.size()) + " layers, num_hidden_layers is " +
                    std::to_string(num_hidden_layers));
  }
  if (family == ModelFamily::Ttt) validateTtt(*this, file);
  if (family == ModelFamily::SrTtt) validateSrTtt(*this, file);
  countParameters(*this, file);
}

nlohmann::json ModelConfig::toJson() const {
  if (family == ModelFamily::Ttt) return tttConfigToJson(*this);
  if (family == ModelFamily::SrTtt) return srTttConfigToJson(*this);
  // Start from the file as read so fields the studio does not interpret survive a round trip.
  json out = raw.is_object() ? raw : json::object();
  out.erase("rope_parameters");
  out.erase("dtype");
  if (!out.contains("architectures")) {
    const char* architecture = family == ModelFamily::Qwen3   ? "Qwen3ForCausalLM"
                               : family == ModelFamily::Qwen2 ? "Qwen2ForCausalLM"
                               : model_type == "mistral"      ? "MistralForCausalLM"
                               : model_type == "phi3"         ? "Phi3ForCausalLM"
                               : family == ModelFamily::Gemma ? gemmaArchitecture(model_type)
                                                              : "LlamaForCausalLM";
    out["architectures"] = json::array({architecture});
  }
  out["model_type"] = model_type.empty() ? modelFamilyName(family) : model_type;
  out["vocab_size"] = vocab_size;
  out["hidden_size"] = hidden_size;
  out["intermediate_size"] = intermediate_size;
  out["num_hidden_layers"] = num_hidden_layers;
  out["num_attention_heads"] = num_attention_heads;
  out["num_key_value_heads"] = num_key_value_heads;
  out["head_dim"] = head_dim;
  out["max_position_embeddings"] = max_position_embeddings;
  out["rms_norm_eps"] = rms_norm_eps;
  out["rope_theta"] = rope_theta;
  out["rope_scaling"] = ropeScalingToJson(rope_scaling);
  out["tie_word_embeddings"] = tie_word_embeddings;
  if ((family == ModelFamily::Qwen2 || family == ModelFamily::Qwen3) && sliding_window > 0) {
    out["use_sliding_window"] = true;
    out["sliding_window"] = sliding_window;
    out["layer_types"] = layerTypesJson(sliding_layers);
  }
  if (family == ModelFamily::Qwen2) {
    out.erase("attention_bias");
  } else {
    out["attention_bias"] = attention_bias;
  }
  if (family == ModelFamily::Gemma) {
    writeGemmaFields(out, *this);
  } else {
    out["hidden_act"] = hidden_act;
  }
  out["torch_dtype"] = torch_dtype;
  writeSpecialTokenIds(out, eos_token_ids, bos_token_id);
  return out;
}

std::map<std::string, std::vector<std::int64_t>> ModelConfig::expectedTensorShapes() const {
  if (family == ModelFamily::Ttt) return tttTensorShapes(*this);
  if (family == ModelFamily::SrTtt) return srTttTensorShapes(*this);
  const std::int64_t H = hidden_size, I = intermediate_size, hd = head_dim;
  const std::int64_t q = num_attention_heads * hd;
  const std::int64_t kv = num_key_value_heads * hd;
  std::map<std::string, std::vector<std::int64_t>> shapes;
  shapes["model.embed_tokens.weight"] = {vocab_size, H};
  for (std::int64_t i = 0; i < num_hidden_layers; ++i) {
    const std::string layer = "model.layers." + std::to_string(i) + ".";
    shapes[layer + "input_layernorm.weight"] = {H};
    shapes[layer + "post_attention_layernorm.weight"] = {H};
    if (sandwich_norms) {
      shapes[layer + "pre_feedforward_layernorm.weight"] = {H};
      shapes[layer + "post_feedforward_layernorm.weight"] = {H};
    }
    if (fused_projections) {
      shapes[layer + "self_attn.qkv_proj.weight"] = {q + 2 * kv, H};
    } else {
      shapes[layer + "self_attn.q_proj.weight"] = {q, H};
      shapes[layer + "self_attn.k_proj.weight"] = {kv, H};
      shapes[layer + "self_attn.v_proj.weight"] = {kv, H};
    }
    shapes[layer + "self_attn.o_proj.weight"] = {H, q};
    if (attention_bias) {
      shapes[layer + "self_attn.q_proj.bias"] = {q};
      shapes[layer + "self_attn.k_proj.bias"] = {kv};
      shapes[layer + "self_attn.v_proj.bias"] = {kv};
    }
    if (o_proj_bias) shapes[layer + "self_attn.o_proj.bias"] = {H};
    if (qk_norm) {
      shapes[layer + "self_attn.q_norm.weight"] = {hd};
      shapes[layer + "self_attn.k_norm.weight"] = {hd};
    }
    if (fused_projections) {
      shapes[layer + "mlp.gate_up_proj.weight"] = {2 * I, H};
    } else {
      shapes[layer + "mlp.gate_proj.weight"] = {I, H};
      shapes[layer + "mlp.up_proj.weight"] = {I, H};
    }
    shapes[layer + "mlp.down_proj.weight"] = {H, I};
  }
  shapes["model.norm.weight"] = {H};
  if (!tie_word_embeddings) shapes["lm_head.weight"] = {vocab_size, H};
  return shapes;
}

std::int64_t ModelConfig::parameterCount() const { return countParameters(*this, "config.json"); }

}  // namespace studio::model

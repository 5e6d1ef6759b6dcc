#include "core/model/sr_ttt_config.h"

#include <cmath>

#include "core/common/error.h"
#include "core/common/bounded_json.h"
#include "core/model/config_fields.h"

namespace studio::model {

using json = nlohmann::json;

namespace {

constexpr std::int64_t kMaxWindow = std::int64_t{1} << 20;
constexpr std::int64_t kMaxCache = std::int64_t{1} << 24;

void checkPositive(const std::string& file, const char* field, std::int64_t value,
                   std::int64_t max) {
  if (value < 1 || value > max) {
    configError(file, field,
                "must be in [1, " + std::to_string(max) + "], got " + std::to_string(value));
  }
}

void checkUnitInterval(const std::string& file, const char* field, double value, double hi) {
  if (!std::isfinite(value) || value < 0 || value > hi) {
    configError(file, field,
                "must be in [0, " + formatNumber(hi) + "], got " + formatNumber(value));
  }
}

}  // namespace

ModelConfig srTttConfigFromJson(const json& in, const std::string& file) {
  const FieldReader f(in, file, "");
  ModelConfig c;
  c.raw = in;
  c.family = ModelFamily::SrTtt;
  c.model_type = "sr_ttt";
  c.num_hidden_layers = f.requiredInteger("n_layers", 1, kMaxLayers);
  c.hidden_size = f.requiredInteger("d_model", 1, kMaxWidth);
  c.num_attention_heads = f.requiredInteger("n_heads", 1, kMaxHeads);
  c.num_key_value_heads = c.num_attention_heads;
  // v2 projects d_model -> n_heads·d_head, so d_head need not be d_model / n_heads.
  c.head_dim = f.requiredInteger("d_head", 1, kMaxHeadDim);
  if (c.head_dim % 2 != 0) {
    configError(
        file, "d_head",
        "must be even (RoPE rotates pairs of dimensions), got " + std::to_string(c.head_dim));
  }
  c.intermediate_size = f.requiredInteger("d_ff", 1, kMaxWidth);
  c.vocab_size = f.requiredInteger("vocab_size", 1, kMaxVocab);
  // v2 hands max_seq_len to its rotary table and never reads it again: it bounds nothing.
  c.max_position_embeddings = f.integer("max_seq_len", 1, kMaxPositions).value_or(32768);
  c.rope_theta = f.number("rope_theta").value_or(10000.0);
  if (f.find("rope_scaling")) {
    throwError(ErrorKind::Unsupported, file, "rope_scaling",
               "SR-TTT v2 rotates by plain RoPE; rope_scaling is refused rather than ignored");
  }
  // lm_head.weight IS embed.weight in v2 (SRTTTModel ties them in its constructor).
  if (!f.boolean("tie_word_embeddings").value_or(true)) {
    throwError(ErrorKind::Unsupported, file, "tie_word_embeddings",
               "SR-TTT v2's lm_head is always tied to embed.weight");
  }
  c.tie_word_embeddings = true;
  if (const auto dtype = f.string("torch_dtype")) c.torch_dtype = *dtype;
  c.eos_token_ids = f.tokenIds("eos_token_id");
  c.bos_token_id = f.integer("bos_token_id", 0, kMaxTokenId).value_or(-1);

  SrTttSettings& s = c.sr_ttt;
  s.ttt_lr = f.number("ttt_lr").value_or(s.ttt_lr);
  s.window_size = f.integer("window_size", 1, kMaxWindow).value_or(s.window_size);
  s.ttt_update_chunk = f.integer("ttt_update_chunk", 1, kMaxWindow).value_or(s.ttt_update_chunk);
  s.cache_cap = f.integer("cache_cap", 1, kMaxCache).value_or(s.cache_cap);
  s.surprisal_beta = f.number("surprisal_beta").value_or(s.surprisal_beta);
  s.surprisal_percentile = f.number("surprisal_percentile").value_or(s.surprisal_percentile);
  s.chunk_size = f.integer("chunk_size", 1, kMaxWindow).value_or(s.chunk_size);
  s.alpha_init = f.number("alpha_init").value_or(s.alpha_init);
  s.alpha_max = f.number("alpha_max").value_or(s.alpha_max);
  s.needle_style = f.string("needle_style").value_or(s.needle_style);
  s.needle_len_units = f.integer("needle_len_units", 1, 1 << 16).value_or(s.needle_len_units);
  s.oracle_weight = f.number("oracle_weight").value_or(s.oracle_weight);
  s.force_insert_needle_in_training =
      f.boolean("force_insert_needle_in_training").value_or(s.force_insert_needle_in_training);
  s.dtype = f.string("dtype").value_or(s.dtype);

  c.layer_mixers.assign(static_cast<std::size_t>(c.num_hidden_layers), MixerKind::SrTtt);
  c.validate(file);
  return c;
}

void validateSrTtt(const ModelConfig& c, const std::string& file) {
  const SrTttSettings& s = c.sr_ttt;
  checkPositive(file, "window_size", s.window_size, kMaxWindow);
  checkPositive(file, "ttt_update_chunk", s.ttt_update_chunk, kMaxWindow);
  checkPositive(file, "chunk_size", s.chunk_size, kMaxWindow);
  checkPositive(file, "cache_cap", s.cache_cap, kMaxCache);
  checkPositive(file, "needle_len_units", s.needle_len_units, 1 << 16);
  checkUnitInterval(file, "surprisal_beta", s.surprisal_beta, 1.0);
  checkUnitInterval(file, "surprisal_percentile", s.surprisal_percentile, 100.0);
  if (!std::isfinite(s.alpha_max) || s.alpha_max < 0) {
    configError(file, "alpha_max", "must be a finite number ≥ 0, got " + formatNumber(s.alpha_max));
  }
  for (const auto& [field, value] :
       {std::pair{"ttt_lr", s.ttt_lr}, std::pair{"alpha_init", s.alpha_init}}) {
    if (!std::isfinite(value)) configError(file, field, "must be finite");
  }
  if (!std::isfinite(s.oracle_weight) || s.oracle_weight < 0) {
    configError(file, "oracle_weight",
                "must be a finite number ≥ 0, got " + formatNumber(s.oracle_weight));
  }
  if (s.needle_style != "digits" && s.needle_style != "alnum") {
    configError(file, "needle_style", "'" + s.needle_style + "' is not digits or alnum");
  }
  if (s.dtype != "float16" && s.dtype != "bfloat16" && s.dtype != "float32") {
    configError(file, "dtype",
                "'" + s.dtype + "' is not an autocast dtype of v2 (float16, bfloat16, float32)");
  }
  if (c.num_key_value_heads != c.num_attention_heads) {
    configError(file, "n_heads", "an sr_ttt model has no grouped heads");
  }
  if (!c.tie_word_embeddings) {
    configError(file, "tie_word_embeddings", "SR-TTT's lm_head is always tied to embed.weight");
  }
  if (c.qk_norm || c.attention_bias || c.o_proj_bias ||
      c.rope_scaling.type != RopeScaling::Type::None) {
    configError(file, "model_type",
                "an sr_ttt model has no q/k norm, attention biases or rope_scaling");
  }
}

json srTttConfigToJson(const ModelConfig& c) {
  json out = c.raw.is_object() ? c.raw : json::object();
  if (!out.contains("architectures")) out["architectures"] = json::array({"SRTTT"});
  out["model_type"] = "sr_ttt";
  out["n_layers"] = c.num_hidden_layers;
  out["d_model"] = c.hidden_size;
  out["n_heads"] = c.num_attention_heads;
  out["d_head"] = c.head_dim;
  out["d_ff"] = c.intermediate_size;
  const SrTttSettings& s = c.sr_ttt;
  out["ttt_lr"] = s.ttt_lr;
  out["window_size"] = s.window_size;
  out["ttt_update_chunk"] = s.ttt_update_chunk;
  out["cache_cap"] = s.cache_cap;
  out["surprisal_beta"] = s.surprisal_beta;
  out["surprisal_percentile"] = s.surprisal_percentile;
  out["chunk_size"] = s.chunk_size;
  out["alpha_init"] = s.alpha_init;
  out["alpha_max"] = s.alpha_max;
  out["needle_style"] = s.needle_style;
  out["needle_len_units"] = s.needle_len_units;
  out["oracle_weight"] = s.oracle_weight;
  out["force_insert_needle_in_training"] = s.force_insert_needle_in_training;
  out["vocab_size"] = c.vocab_size;
  out["max_seq_len"] = c.max_position_embeddings;
  out["rope_theta"] = c.rope_theta;
  out["dtype"] = s.dtype;
  out["tie_word_embeddings"] = true;
  out["torch_dtype"] = c.torch_dtype;
  writeSpecialTokenIds(out, c.eos_token_ids, c.bos_token_id);
  return out;
}

std::map<std::string, std::vector<std::int64_t>> srTttTensorShapes(const ModelConfig& c) {
  const std::int64_t D = c.hidden_size, F = c.intermediate_size;
  const std::int64_t H = c.num_attention_heads, Dh = c.head_dim, inner = H * Dh;
  std::map<std::string, std::vector<std::int64_t>> shapes;
  shapes["embed.weight"] = {c.vocab_size, D};
  for (int i = 0; i < c.num_hidden_layers; ++i) {
    const std::string block = "blocks." + std::to_string(i) + ".";
    shapes[block + "gate_param"] = {};
    shapes[block + "norm1.weight"] = {D};
    shapes[block + "norm1.bias"] = {D};
    shapes[block + "ttt.W_fast_init"] = {H, Dh, Dh};
    shapes[block + "ttt.ttt_lr"] = {H};
    for (const char* name : {"W_q", "W_k", "W_v"}) {
      shapes[block + "ttt." + name + ".weight"] = {inner, D};
    }
    shapes[block + "ttt.W_o.weight"] = {D, inner};
    shapes[block + "ttt.layer_norm.weight"] = {Dh};
    shapes[block + "ttt.layer_norm.bias"] = {Dh};
    for (const char* name : {"W_qc", "W_kc", "W_vc"}) {
      shapes[block + "cache_attn." + name + ".weight"] = {inner, D};
    }
    shapes[block + "cache_attn.W_o.weight"] = {D, inner};
    shapes[block + "norm2.weight"] = {D};
    shapes[block + "norm2.bias"] = {D};
    shapes[block + "ffn.w1.weight"] = {F, D};
    shapes[block + "ffn.w2.weight"] = {D, F};
    shapes[block + "ffn.w3.weight"] = {F, D};
  }
  shapes["norm_out.weight"] = {D};
  shapes["norm_out.bias"] = {D};
  return shapes;
}

bool isSrTttRuntimeBuffer(const std::string& name) {
  if (name.rfind("blocks.", 0) != 0) return false;
  const std::size_t dot = name.find('.', 7);
  if (dot == std::string::npos || dot == 7) return false;
  for (std::size_t i = 7; i < dot; ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
  }
  const std::string rest = name.substr(dot + 1);
  if (rest == "ttt.rope.inv_freq") return true;
  for (const char* buffer : {"cache.cache_h", "cache.cache_positions", "cache.cache_surprisals",
                             "cache.cache_ages", "cache.cache_is_needle", "cache.count"}) {
    if (rest == buffer) return true;
  }
  return false;
}

}  // namespace studio::model

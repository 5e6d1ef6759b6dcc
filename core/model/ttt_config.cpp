#include "core/model/ttt_config.h"

#include <cmath>

#include "core/common/error.h"
#include "core/common/bounded_json.h"
#include "core/model/config_fields.h"

namespace studio::model {

using json = nlohmann::json;

namespace {

constexpr std::int64_t kMaxMiniBatch = 1 << 16;
constexpr std::int64_t kMaxConvKernel = 1 << 10;

MixerKind layerType(const FieldReader& f) {
  const auto current = f.string("ttt_layer_type");
  const auto older = f.string("ttt_block_type");
  if (current && older && *current != *older) {
    configError(f.file(), "ttt_block_type",
                "'" + *older + "' contradicts ttt_layer_type '" + *current + "'");
  }
  const std::string key = current ? "ttt_layer_type" : "ttt_block_type";
  const std::string value = current ? *current : older.value_or("linear");
  if (value == "linear") return MixerKind::TttLinear;
  if (value == "mlp") return MixerKind::TttMlp;
  throwError(ErrorKind::Unsupported, f.file(), key,
             "'" + value + "' is not a TTT layer type (supported: linear, mlp)");
}

}  // namespace

const char* mixerModuleName(const ModelConfig& config) {
  return config.family == ModelFamily::Ttt ? "seq_modeling_block" : "self_attn";
}

ModelConfig tttConfigFromJson(const json& in, const std::string& file) {
  const FieldReader f(in, file, "");
  ModelConfig c;
  c.raw = in;
  c.family = ModelFamily::Ttt;
  c.model_type = "ttt";
  c.vocab_size = f.requiredInteger("vocab_size", 1, kMaxVocab);
  c.hidden_size = f.requiredInteger("hidden_size", 1, kMaxWidth);
  c.intermediate_size = f.requiredInteger("intermediate_size", 1, kMaxWidth);
  c.num_hidden_layers = f.requiredInteger("num_hidden_layers", 1, kMaxLayers);
  c.num_attention_heads = f.requiredInteger("num_attention_heads", 1, kMaxHeads);
  if (c.hidden_size % c.num_attention_heads != 0) {
    configError(file, "num_attention_heads",
                std::to_string(c.num_attention_heads) + " does not divide hidden_size " +
                    std::to_string(c.hidden_size) + " (a TTT head is hidden_size / heads wide)");
  }
  c.head_dim = c.hidden_size / c.num_attention_heads;
  if (const auto head_dim = f.integer("head_dim", 1, kMaxHeadDim); head_dim && *head_dim != c.head_dim) {
    configError(file, "head_dim",
                std::to_string(*head_dim) + " is not hidden_size / num_attention_heads = " +
                    std::to_string(c.head_dim) + ", which TTT layers use");
  }
  c.num_key_value_heads = c.num_attention_heads;
  if (const auto kv = f.integer("num_key_value_heads", 1, kMaxHeads); kv && *kv != c.num_attention_heads) {
    configError(file, "num_key_value_heads",
                std::to_string(*kv) + " differs from num_attention_heads " +
                    std::to_string(c.num_attention_heads) + "; TTT models have no grouped heads");
  }
  c.max_position_embeddings = f.integer("max_position_embeddings", 1, kMaxPositions).value_or(2048);
  c.rms_norm_eps = f.number("rms_norm_eps").value_or(1e-6);
  c.rope_theta = f.number("rope_theta").value_or(10000.0);
  if (f.find("rope_scaling")) {
    throwError(ErrorKind::Unsupported, file, "rope_scaling",
               "TTT layers rotate by the position inside the mini-batch; rope_scaling does not "
               "apply (ttt-lm-pytorch ignores it) and is refused rather than ignored");
  }
  c.tie_word_embeddings = f.boolean("tie_word_embeddings").value_or(true);  // TTTConfig's default
  c.hidden_act = f.string("hidden_act").value_or("silu");
  if (const auto dtype = f.string("torch_dtype")) {
    c.torch_dtype = *dtype;
  } else if (const auto new_dtype = f.string("dtype")) {
    c.torch_dtype = *new_dtype;
  }
  c.eos_token_ids = f.tokenIds("eos_token_id");
  c.bos_token_id = f.integer("bos_token_id", 0, kMaxTokenId).value_or(-1);

  TttSettings& t = c.ttt;
  t.layer_type = layerType(f);
  t.base_lr = f.number("ttt_base_lr").value_or(1.0);
  t.mini_batch_size = f.integer("mini_batch_size", 1, kMaxMiniBatch).value_or(16);
  t.pre_conv = f.boolean("pre_conv").value_or(false);
  t.conv_kernel = f.integer("conv_kernel", 1, kMaxConvKernel).value_or(4);
  t.use_gate = f.boolean("use_gate").value_or(false);
  t.share_qk = f.boolean("share_qk").value_or(false);

  c.layer_mixers.assign(static_cast<std::size_t>(c.num_hidden_layers), t.layer_type);
  if (const json* types = f.find("layer_types")) {
    if (!types->is_array()) {
      configError(file, "layer_types", "must be a list, got " + describeJson(*types));
    }
    if (static_cast<std::int64_t>(types->size()) != c.num_hidden_layers) {
      configError(file, "layer_types",
                  "lists " + std::to_string(types->size()) + " layers, num_hidden_layers is " +
                      std::to_string(c.num_hidden_layers));
    }
    for (std::size_t i = 0; i < types->size(); ++i) {
      const json& type = (*types)[i];
      const std::string field = "layer_types[" + std::to_string(i) + "]";
      if (type.is_string() && type.get<std::string>() == "ttt") continue;
      if (type.is_string() && type.get<std::string>() == "attention") {
        c.layer_mixers[i] = MixerKind::Attention;
        continue;
      }
      throwError(ErrorKind::Unsupported, file, field,
                 describeJson(type) + " is not a layer type of a ttt model (ttt, attention)");
    }
  }
  c.validate(file);
  return c;
}

void validateTtt(const ModelConfig& c, const std::string& file) {
  const TttSettings& t = c.ttt;
  if (t.layer_type != MixerKind::TttLinear && t.layer_type != MixerKind::TttMlp) {
    configError(file, "ttt_layer_type", "must be linear or mlp");
  }
  if (!std::isfinite(t.base_lr) || t.base_lr < 0) {
    configError(file, "ttt_base_lr", "must be a finite number ≥ 0, got " + formatNumber(t.base_lr));
  }
  if (t.mini_batch_size < 1 || t.mini_batch_size > kMaxMiniBatch) {
    configError(file, "mini_batch_size",
                "must be in [1, " + std::to_string(kMaxMiniBatch) + "], got " +
                    std::to_string(t.mini_batch_size));
  }
  if (t.conv_kernel < 1 || t.conv_kernel > kMaxConvKernel) {
    configError(file, "conv_kernel",
                "must be in [1, " + std::to_string(kMaxConvKernel) + "], got " +
                    std::to_string(t.conv_kernel));
  }
  if (c.head_dim * c.num_attention_heads != c.hidden_size) {
    configError(file, "num_attention_heads",
                "head_dim " + std::to_string(c.head_dim) + " × " +
                    std::to_string(c.num_attention_heads) + " heads is not hidden_size " +
                    std::to_string(c.hidden_size));
  }
  if (c.num_key_value_heads != c.num_attention_heads) {
    configError(file, "num_key_value_heads", "must equal num_attention_heads in a ttt model");
  }
  if (c.qk_norm || c.attention_bias || c.o_proj_bias || c.rope_scaling.type != RopeScaling::Type::None) {
    configError(file, "model_type",
                "a ttt model has no q/k norm, attention biases or rope_scaling");
  }
}

json tttConfigToJson(const ModelConfig& c) {
  json out = c.raw.is_object() ? c.raw : json::object();
  for (const char* stale : {"ttt_block_type", "dtype", "rope_scaling", "head_dim",
                            "num_key_value_heads", "layer_types"}) {
    out.erase(stale);
  }
  if (!out.contains("architectures")) out["architectures"] = json::array({"TTTForCausalLM"});
  out["model_type"] = "ttt";
  out["vocab_size"] = c.vocab_size;
  out["hidden_size"] = c.hidden_size;
  out["intermediate_size"] = c.intermediate_size;
  out["num_hidden_layers"] = c.num_hidden_layers;
  out["num_attention_heads"] = c.num_attention_heads;
  out["max_position_embeddings"] = c.max_position_embeddings;
  out["rms_norm_eps"] = c.rms_norm_eps;
  out["rope_theta"] = c.rope_theta;
  out["tie_word_embeddings"] = c.tie_word_embeddings;
  out["hidden_act"] = c.hidden_act;
  out["torch_dtype"] = c.torch_dtype;
  const TttSettings& t = c.ttt;
  out["ttt_layer_type"] = t.layer_type == MixerKind::TttMlp ? "mlp" : "linear";
  out["ttt_base_lr"] = t.base_lr;
  out["mini_batch_size"] = t.mini_batch_size;
  out["pre_conv"] = t.pre_conv;
  out["conv_kernel"] = t.conv_kernel;
  out["use_gate"] = t.use_gate;
  out["share_qk"] = t.share_qk;
  if (c.attentionLayerCount() > 0) {
    json types = json::array();
    for (int i = 0; i < c.num_hidden_layers; ++i) {
      types.push_back(c.mixer(i) == MixerKind::Attention ? "attention" : "ttt");
    }
    out["layer_types"] = types;
  }
  writeSpecialTokenIds(out, c.eos_token_ids, c.bos_token_id);
  return out;
}

std::map<std::string, std::vector<std::int64_t>> tttTensorShapes(const ModelConfig& c) {
  const std::int64_t H = c.hidden_size, I = c.intermediate_size;
  const std::int64_t heads = c.num_attention_heads, f = c.head_dim;
  const TttSettings& t = c.ttt;
  std::map<std::string, std::vector<std::int64_t>> shapes;
  shapes["model.embed_tokens.weight"] = {c.vocab_size, H};
  for (int i = 0; i < c.num_hidden_layers; ++i) {
    const std::string layer = "model.layers." + std::to_string(i) + ".";
    if (t.pre_conv) {
      shapes[layer + "conv.norm.weight"] = {H};
      shapes[layer + "conv.conv.weight"] = {H, 1, t.conv_kernel};
      shapes[layer + "conv.conv.bias"] = {H};
    }
    shapes[layer + "seq_norm.weight"] = {H};
    shapes[layer + "ffn_norm.weight"] = {H};
    shapes[layer + "mlp.gate_proj.weight"] = {I, H};
    shapes[layer + "mlp.up_proj.weight"] = {I, H};
    shapes[layer + "mlp.down_proj.weight"] = {H, I};
    const std::string mixer = layer + "seq_modeling_block.";
    shapes[mixer + "q_proj.weight"] = {H, H};
    shapes[mixer + "v_proj.weight"] = {H, H};
    shapes[mixer + "o_proj.weight"] = {H, H};
    if (c.mixer(i) == MixerKind::Attention) {
      shapes[mixer + "k_proj.weight"] = {H, H};
      continue;
    }
    if (t.share_qk) {
      for (const char* conv : {"conv_q.", "conv_k."}) {
        shapes[mixer + conv + "weight"] = {H, 1, t.conv_kernel};
        shapes[mixer + conv + "bias"] = {H};
      }
    } else {
      shapes[mixer + "k_proj.weight"] = {H, H};
    }
    shapes[mixer + "learnable_token_idx"] = {t.mini_batch_size};
    shapes[mixer + "learnable_ttt_lr_weight"] = {heads, 1, H};
    shapes[mixer + "learnable_ttt_lr_bias"] = {heads, 1};
    shapes[mixer + "ttt_norm_weight"] = {heads, f};
    shapes[mixer + "ttt_norm_bias"] = {heads, f};
    shapes[mixer + "post_norm.weight"] = {H};
    shapes[mixer + "post_norm.bias"] = {H};
    if (t.use_gate) shapes[mixer + "g_proj.weight"] = {H, H};
    if (c.mixer(i) == MixerKind::TttMlp) {
      shapes[mixer + "W1"] = {heads, f, 4 * f};
      shapes[mixer + "b1"] = {heads, 1, 4 * f};
      shapes[mixer + "W2"] = {heads, 4 * f, f};
      shapes[mixer + "b2"] = {heads, 1, f};
    } else {
      shapes[mixer + "W1"] = {heads, f, f};
      shapes[mixer + "b1"] = {heads, 1, f};
    }
  }
  shapes["model.norm.weight"] = {H};
  if (!c.tie_word_embeddings) shapes["lm_head.weight"] = {c.vocab_size, H};
  return shapes;
}

}  // namespace studio::model

#include "core/model/gemma_config.h"

#include <cmath>

#include "core/common/bounded_json.h"
#include "core/common/error.h"
#include "core/model/layer_types.h"

namespace studio::model {

namespace {

using json = nlohmann::json;

// A soft-capping field: its default when absent, none (0) when written as null.
double softCap(const json& in, const FieldReader& f, const char* key, double absent) {
  if (!in.contains(key)) return absent;
  if (in.at(key).is_null()) return 0;
  const double cap = *f.number(key);
  if (!(cap > 0)) configError(f.file(), key, "must be positive or null, got " + formatNumber(cap));
  return cap;
}

// layer_types when written; else transformers' default pattern: gemma2 slides on even layers,
// gemma3_text on every layer but each sliding_window_pattern-th.
std::vector<bool> slidingLayers(const FieldReader& f, const ModelConfig& c) {
  if (auto written = readSlidingLayerTypes(f)) return *written;
  if (c.model_type == "gemma") return {};
  std::vector<bool> sliding;
  const std::int64_t pattern = c.model_type == "gemma2"
                                   ? 2
                                   : f.integer("sliding_window_pattern", 1, kMaxLayers).value_or(6);
  for (std::int64_t i = 0; i < c.num_hidden_layers; ++i) {
    sliding.push_back(c.model_type == "gemma2" ? i % 2 == 0 : (i + 1) % pattern != 0);
  }
  return sliding;
}

// transformers 5 nests RoPE per layer type: rope_parameters.sliding_attention holds the local
// layers' base (model_config.cpp reads rope_parameters.full_attention's).
void readLocalRope(const FieldReader& f, ModelConfig& c) {
  const json* parameters = f.find("rope_parameters");
  if (!parameters || !parameters->is_object() || !parameters->contains(kSlidingAttention)) return;
  const json& sliding = parameters->at(kSlidingAttention);
  const std::string name = std::string("rope_parameters.") + kSlidingAttention;
  if (!sliding.is_object()) configError(f.file(), name, "must be an object, got " + describeJson(sliding));
  const FieldReader local(sliding, f.file(), name + ".");
  c.local_rope_theta = local.number("rope_theta").value_or(c.local_rope_theta);
  if (const auto type = local.string("rope_type"); type && *type != "default") {
    throwError(ErrorKind::Unsupported, f.file(), local.name("rope_type"),
               *type + " is not supported (Gemma's sliding layers rotate without scaling)");
  }
}

}  // namespace

bool isGemmaModelType(const std::string& model_type) {
  return model_type == "gemma" || model_type == "gemma2" || model_type == "gemma3_text";
}

const char* gemmaArchitecture(const std::string& model_type) {
  if (model_type == "gemma2") return "Gemma2ForCausalLM";
  if (model_type == "gemma3_text") return "Gemma3ForCausalLM";
  return "GemmaForCausalLM";
}

void readGemmaFields(const json& in, const FieldReader& f, ModelConfig& c) {
  const bool gemma1 = c.model_type == "gemma";
  const bool gemma3 = c.model_type == "gemma3_text";
  c.unit_offset_norms = true;
  c.scaled_embeddings = true;
  c.sandwich_norms = !gemma1;
  c.qk_norm = gemma3;
  // transformers' Gemma MLPs read hidden_activation (gemma ignores hidden_act: PR 29402).
  c.hidden_act = f.string("hidden_activation").value_or("gelu_pytorch_tanh");
  if (!gemma1) {
    c.query_pre_attn_scalar =
        f.number("query_pre_attn_scalar").value_or(gemma3 ? 256.0 : 224.0);
    if (!(c.query_pre_attn_scalar > 0)) {
      configError(f.file(), "query_pre_attn_scalar",
                  "must be positive, got " + formatNumber(c.query_pre_attn_scalar));
    }
    c.attn_logit_softcapping = softCap(in, f, "attn_logit_softcapping", gemma3 ? 0 : 50.0);
    c.final_logit_softcapping = softCap(in, f, "final_logit_softcapping", gemma3 ? 0 : 30.0);
    c.sliding_window = f.integer("sliding_window", 1, kMaxPositions).value_or(4096);
    c.sliding_layers = slidingLayers(f, c);
  }
  if (gemma3) {
    c.local_rope_theta = f.number("rope_local_base_freq").value_or(10000.0);
    readLocalRope(f, c);
    if (f.boolean("use_bidirectional_attention").value_or(false)) {
      throwError(ErrorKind::Unsupported, f.file(), "use_bidirectional_attention",
                 "bidirectional attention (an encoder's) is not supported: the studio runs "
                 "causal language models");
    }
  }
}

void validateGemma(const ModelConfig& c, const std::string& file) {
  if (c.hidden_act != "gelu_pytorch_tanh" && c.hidden_act != "gelu") {
    throwError(ErrorKind::Unsupported, file, "hidden_activation",
               c.hidden_act + " is not supported (gelu_pytorch_tanh or gelu)");
  }
  if (c.query_pre_attn_scalar < 0 || !std::isfinite(c.query_pre_attn_scalar)) {
    configError(file, "query_pre_attn_scalar",
                "must be positive, got " + formatNumber(c.query_pre_attn_scalar));
  }
  if (c.attn_logit_softcapping < 0 || c.final_logit_softcapping < 0) {
    configError(file, "attn_logit_softcapping", "soft-capping must be positive or null");
  }
  if (c.local_rope_theta < 0 || !std::isfinite(c.local_rope_theta)) {
    configError(file, "rope_local_base_freq",
                "must be positive, got " + formatNumber(c.local_rope_theta));
  }
}

void writeGemmaFields(json& out, const ModelConfig& c) {
  out["hidden_activation"] = c.hidden_act;
  if (c.model_type == "gemma") return;
  out["query_pre_attn_scalar"] = c.query_pre_attn_scalar;
  out["attn_logit_softcapping"] =
      c.attn_logit_softcapping > 0 ? json(c.attn_logit_softcapping) : json(nullptr);
  out["final_logit_softcapping"] =
      c.final_logit_softcapping > 0 ? json(c.final_logit_softcapping) : json(nullptr);
  out["sliding_window"] = c.sliding_window;
  out["layer_types"] = layerTypesJson(c.sliding_layers);
  if (c.model_type == "gemma3_text") out["rope_local_base_freq"] = c.local_rope_theta;
}

}  // namespace studio::model

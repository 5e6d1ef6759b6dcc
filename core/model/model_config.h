#pragma once
// The architecture of a checkpoint, read from its config.json (Hugging Face names and defaults).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace studio::model {

enum class ModelFamily { Qwen3, Qwen2, Llama, Gemma, Ttt, SrTtt };

const char* modelFamilyName(ModelFamily family);

// What mixes tokens in a layer (DESIGN.md: a layer is a mixer plus an MLP). SrTtt: SR-TTT's block,
// a TTT-Linear layer plus the residual cache read (sr_ttt_block.h).
enum class MixerKind { Attention, TttLinear, TttMlp, SrTtt };

// "attention", "TTT-Linear", "TTT-MLP", "SR-TTT".
const char* mixerKindName(MixerKind kind);

// The TTT layers of model_type "ttt" (ttt-lm-pytorch's TTTConfig names and defaults, TTT paper
// §2 and App. A; SPEC §4).
struct TttSettings {
  MixerKind layer_type = MixerKind::TttLinear;  // ttt_layer_type (older files: ttt_block_type)
  double base_lr = 1.0;                         // ttt_base_lr: η = base_lr·σ(x·w_h + b_h)/head_dim
  std::int64_t mini_batch_size = 16;            // b: fast weights update once every b tokens
  bool pre_conv = false;    // Mamba backbone: x += conv(RMSNorm(x)) before each layer
  std::int64_t conv_kernel = 4;
  bool use_gate = false;    // output ·= gelu_tanh(g_proj(x))
  bool share_qk = false;    // one q_proj; q and k from two causal convolutions of it
};

// model_type "sr_ttt": the fields of SR-TTT v2's SRTTTConfig (sr_ttt_v2.py; SPEC §5) besides the
// sizes, with v2's names and defaults (docs/sr-ttt.md). The sizes map onto ModelConfig's: n_layers,
// d_model, n_heads, d_head, d_ff, vocab_size, max_seq_len, rope_theta.
struct SrTttSettings {
  double ttt_lr = 0.01;                 // the per-head inner lr's initial value (training only)
  std::int64_t window_size = 64;        // cache read / surprisal filter / insert granularity
  std::int64_t ttt_update_chunk = 16;   // the fast weights update once per this many tokens
  std::int64_t cache_cap = 512;         // residual cache entries per layer
  double surprisal_beta = 0.9;          // τ ← β·τ + (1 − β)·p
  double surprisal_percentile = 95.0;   // p: this percentile of the window's losses
  std::int64_t chunk_size = 16;         // the chunk-mean rule's chunk (zero-padded)
  double alpha_init = 0.05;             // gate_param's initial value (random weights, stage 2)
  double alpha_max = 0.5;               // α = clamp(gate_param, 0, alpha_max)
  std::string needle_style = "digits";  // training data: "digits" or "alnum"
  std::int64_t needle_len_units = 8;    // training data: digits or characters of the needle
  double oracle_weight = 1.0;           // stage 2: weight of the oracle attention loss
  bool force_insert_needle_in_training = true;  // stage 2: the needle enters the cache
  std::string dtype = "float16";  // v2's autocast dtype on CUDA; not the weights' (torch_dtype)
};

struct RopeScaling {
  enum class Type { None, Linear, Llama3, Yarn };
  Type type = Type::None;
  double factor = 1.0;
  // llama3
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  std::int64_t original_max_position_embeddings = 0;
  // yarn
  double beta_fast = 32.0;
  double beta_slow = 1.0;
  double attention_factor = 0.0;  // 0: derived from factor (0.1·ln(factor) + 1)
};

const char* ropeScalingTypeName(RopeScaling::Type type);

// generation_config.json's sampling fields, with transformers' GenerationConfig defaults where the
// file (or a field) is absent: greedy unless do_sample.
struct GenerationDefaults {
  bool from_file = false;  // generation_config.json was there
  bool do_sample = false;
  double temperature = 1.0;
  double top_p = 1.0;
  std::int64_t top_k = 50;
};

struct ModelConfig {
  ModelFamily family = ModelFamily::Qwen3;
  std::string model_type;  // as written in config.json

  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;
  std::int64_t intermediate_size = 0;
  std::int64_t num_hidden_layers = 0;
  std::int64_t num_attention_heads = 0;
  std::int64_t num_key_value_heads = 0;
  std::int64_t head_dim = 0;  // need not equal hidden_size / num_attention_heads
  std::int64_t max_position_embeddings = 0;

  double rms_norm_eps = 1e-6;
  double rope_theta = 10000.0;
  RopeScaling rope_scaling;

  bool tie_word_embeddings = false;
  bool attention_bias = false;  // q/k/v projections carry biases (qwen2 always; llama if set)
  // o_proj carries a bias too: llama and qwen3 with attention_bias (Hugging Face gives all four
  // projections `bias=config.attention_bias`); never qwen2.
  bool o_proj_bias = false;
  bool qk_norm = false;         // per-head RMSNorm on q and k before RoPE (qwen3)
  // phi3: q, k and v stored as one self_attn.qkv_proj and gate and up as one mlp.gate_up_proj
  // (fused_projections.h); the modules keep them apart.
  bool fused_projections = false;
  // Sliding-window attention (mistral, phi3, gemma2, gemma3_text; qwen2 and qwen3 with
  // use_sliding_window): query i of a sliding layer sees keys j with i − sliding_window < j ≤ i,
  // as transformers' mask does (0: no window).
  std::int64_t sliding_window = 0;
  // Which layers slide (gemma2, gemma3_text: layer_types or the pattern; qwen2, qwen3:
  // layer_types or max_window_layers); empty: every layer when sliding_window > 0 (mistral, phi3).
  std::vector<bool> sliding_layers;
  // The sliding layers' RoPE base, without rope_scaling (gemma3_text: rope_local_base_freq); 0:
  // they rotate as the other layers do.
  double local_rope_theta = 0;
  // Gemma (gemma_config.cpp): RMSNorm scales by (1 + weight) in float32; the embeddings are
  // multiplied by √hidden_size rounded to their dtype; gemma2 and gemma3_text normalise the
  // mixer's output (post_attention_layernorm) and wrap the MLP in pre_feedforward_layernorm and
  // post_feedforward_layernorm.
  bool unit_offset_norms = false;
  bool scaled_embeddings = false;
  bool sandwich_norms = false;
  // The attention scale is query_pre_attn_scalar^−½ (gemma2, gemma3_text); 0: head_dim^−½.
  double query_pre_attn_scalar = 0;
  // Soft-capping c·tanh(x / c) of the attention scores and of the logits (gemma2); 0: none.
  double attn_logit_softcapping = 0;
  double final_logit_softcapping = 0;
  std::string hidden_act = "silu";  // the gated MLP's: silu; gelu_pytorch_tanh or gelu (gemma)
  std::string torch_dtype = "float32";

  // One per layer: Attention for every layer of qwen3/qwen2/llama; for ttt, the TTT layer type
  // (or, where the studio's `layer_types` extension says "attention", an attention layer).
  std::vector<MixerKind> layer_mixers;
  TttSettings ttt;  // family Ttt only
  SrTttSettings sr_ttt;  // family SrTtt only

  std::vector<std::int64_t> eos_token_ids;  // from config.json (and generation_config.json)
  GenerationDefaults generation;            // from generation_config.json (checkpoint.h)
  std::int64_t bos_token_id = -1;           // −1: none

  nlohmann::json raw;  // the file as read, for round trips and `inspect`

  // Parses and validates config.json text. `file` names the file in error messages. Throws
  // studio::Error (Config) naming the field for anything missing, mistyped or out of range, and
  // (Unsupported) for a model_type or rope_scaling type the studio does not run.
  static ModelConfig fromJson(const nlohmann::json& json, const std::string& file = "config.json");

  // The checks fromJson makes on the parsed values, for configs built in code (the trainer, the
  // tests, the checkpoint writer): positive and bounded sizes, heads divisible by kv heads, an even
  // head_dim, a parameter count that fits in 64 bits. Throws studio::Error (Config).
  void validate(const std::string& file = "config.json") const;

  // The config.json a checkpoint writer stores (Hugging Face field names).
  nlohmann::json toJson() const;

  // The shape every tensor of this architecture must have, by Hugging Face name
  // ("model.layers.3.self_attn.q_proj.weight" -> {heads·head_dim, hidden}), as the checkpoint
  // stores it (phi3: the fused qkv_proj and gate_up_proj). lm_head.weight is absent when the
  // embeddings are tied.
  std::map<std::string, std::vector<std::int64_t>> expectedTensorShapes() const;

  // Parameters of the architecture (tied embeddings counted once).
  std::int64_t parameterCount() const;

  std::int64_t kvGroups() const { return num_attention_heads / num_key_value_heads; }
  // Layer `layer`'s mixer (configs built in code may leave layer_mixers empty: every layer is
  // then attention, for ttt the TTT layer type, for sr_ttt SR-TTT).
  MixerKind mixer(int layer) const;
  // Layers whose mixer is attention (the probes and qTTT work on them).
  int attentionLayerCount() const;
  bool allAttention() const { return attentionLayerCount() == num_hidden_layers; }
  // How many positions back layer `layer`'s queries see (sliding_window), or 0: every earlier key.
  std::int64_t attentionWindow(int layer) const;
  // The scale of the attention scores: query_pre_attn_scalar^−½, else head_dim^−½.
  double attentionScale() const;
};

}  // namespace studio::model

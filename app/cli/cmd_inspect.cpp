// studio-cli inspect: what a model folder holds and how the engine would run it, as JSON. Loads
// and checks the whole folder (headers, shapes, dtypes) without reading the weights' bytes.

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <string>

#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "core/model/checkpoint.h"
#include "core/model/model_loader.h"

namespace studio::cli {

namespace {

struct InspectOptions {
  std::string model;
  std::string device = "cpu";
  std::string dtype;  // empty: the device's default
};

nlohmann::json optionalPositive(double value) {
  return value > 0 ? nlohmann::json(value) : nlohmann::json();
}

// One entry per layer: the keys it sees back from a query (0: every earlier key).
nlohmann::json attentionWindows(const model::ModelConfig& config) {
  nlohmann::json windows = nlohmann::json::array();
  for (int layer = 0; layer < config.num_hidden_layers; ++layer) {
    windows.push_back(config.attentionWindow(layer));
  }
  return windows;
}

nlohmann::json ropeJson(const model::ModelConfig& config) {
  const model::RopeScaling& s = config.rope_scaling;
  nlohmann::json scaling = nullptr;
  switch (s.type) {
    case model::RopeScaling::Type::None: break;
    case model::RopeScaling::Type::Linear:
      scaling = {{"type", "linear"}, {"factor", s.factor}};
      break;
    case model::RopeScaling::Type::Llama3:
      scaling = {{"type", "llama3"},
                 {"factor", s.factor},
                 {"low_freq_factor", s.low_freq_factor},
                 {"high_freq_factor", s.high_freq_factor},
                 {"original_max_position_embeddings", s.original_max_position_embeddings}};
      break;
    case model::RopeScaling::Type::Yarn:
      scaling = {{"type", "yarn"},
                 {"factor", s.factor},
                 {"beta_fast", s.beta_fast},
                 {"beta_slow", s.beta_slow},
                 {"attention_factor", s.attention_factor},
                 {"original_max_position_embeddings", s.original_max_position_embeddings}};
      break;
  }
  return {{"theta", config.rope_theta}, {"scaling", scaling}};
}

// The device and dtype the engine would use: f32 on the CPU, bf16 on CUDA unless asked otherwise.
std::pair<std::string, std::string> engineDeviceAndDtype(const InspectOptions& options) {
  // The loader's own parsing: cuda:N, the long dtype names, and its message when CUDA is absent.
  const torch::Device device = model::parseDevice(options.device);
  return {device.str(), model::dtypeName(model::parseDtype(options.dtype, device))};
}

// Each layer's mixer, and for ttt and sr_ttt models their layers' settings.
void addMixers(const model::ModelConfig& c, nlohmann::json& out) {
  nlohmann::json layers = nlohmann::json::array();
  for (int i = 0; i < c.num_hidden_layers; ++i) layers.push_back(model::mixerKindName(c.mixer(i)));
  out["layer_mixers"] = layers;
  out["attention_layers"] = c.attentionLayerCount();
  if (c.family == model::ModelFamily::SrTtt) {
    const model::SrTttSettings& s = c.sr_ttt;
    out["sr_ttt"] = {{"window_size", s.window_size},
                     {"ttt_update_chunk", s.ttt_update_chunk},
                     {"cache_cap", s.cache_cap},
                     {"surprisal_beta", s.surprisal_beta},
                     {"surprisal_percentile", s.surprisal_percentile},
                     {"chunk_size", s.chunk_size},
                     {"alpha_max", s.alpha_max}};
    return;
  }
  if (c.family != model::ModelFamily::Ttt) return;
  const model::TttSettings& t = c.ttt;
  out["ttt"] = {{"ttt_layer_type", t.layer_type == model::MixerKind::TttMlp ? "mlp" : "linear"},
                {"ttt_base_lr", t.base_lr},
                {"mini_batch_size", t.mini_batch_size},
                {"pre_conv", t.pre_conv},
                {"conv_kernel", t.conv_kernel},
                {"use_gate", t.use_gate},
                {"share_qk", t.share_qk}};
}

nlohmann::json inspect(const InspectOptions& options) {
  const auto [device, dtype] = engineDeviceAndDtype(options);
  const model::Checkpoint checkpoint = model::loadCheckpoint(options.model);
  const model::ModelConfig& c = checkpoint.config;

  nlohmann::json files = nlohmann::json::array();
  for (const model::SafetensorsFile& file : checkpoint.files) {
    files.push_back({{"name", file.displayName()},
                     {"bytes", file.fileSize()},
                     {"tensors", file.names().size()}});
  }
  nlohmann::json out = {
      {"model", options.model},
      {"family", model::modelFamilyName(c.family)},
      {"model_type", c.model_type},
      {"architectures", c.raw.value("architectures", nlohmann::json::array())},
      {"vocab_size", c.vocab_size},
      {"hidden_size", c.hidden_size},
      {"intermediate_size", c.intermediate_size},
      {"num_hidden_layers", c.num_hidden_layers},
      {"num_attention_heads", c.num_attention_heads},
      {"num_key_value_heads", c.num_key_value_heads},
      {"head_dim", c.head_dim},
      {"max_position_embeddings", c.max_position_embeddings},
      {"rms_norm_eps", c.rms_norm_eps},
      {"rope", ropeJson(c)},
      {"tie_word_embeddings", c.tie_word_embeddings},
      {"attention_bias", c.attention_bias},
      {"o_proj_bias", c.o_proj_bias},
      {"qk_norm", c.qk_norm},
      {"fused_projections", c.fused_projections},
      // How many keys a sliding layer sees (null: no window), and per layer its window (0: all).
      {"sliding_window", c.sliding_window > 0 ? nlohmann::json(c.sliding_window) : nlohmann::json()},
      {"attention_windows", attentionWindows(c)},
      {"attention_scale", c.attentionScale()},
      {"attn_logit_softcapping", optionalPositive(c.attn_logit_softcapping)},
      {"final_logit_softcapping", optionalPositive(c.final_logit_softcapping)},
      {"local_rope_theta", optionalPositive(c.local_rope_theta)},
      {"unit_offset_norms", c.unit_offset_norms},
      {"scaled_embeddings", c.scaled_embeddings},
      {"sandwich_norms", c.sandwich_norms},
      {"hidden_act", c.hidden_act},
      {"torch_dtype", c.torch_dtype},
      {"eos_token_ids", c.eos_token_ids},
      // What decoding=model samples with (null: no generation_config.json, greedy).
      {"generation", c.generation.from_file
                         ? nlohmann::json{{"do_sample", c.generation.do_sample},
                                          {"temperature", c.generation.temperature},
                                          {"top_p", c.generation.top_p},
                                          {"top_k", c.generation.top_k}}
                         : nlohmann::json()},
      {"bos_token_id", c.bos_token_id >= 0 ? nlohmann::json(c.bos_token_id) : nlohmann::json()},
      {"parameter_count", c.parameterCount()},
      {"tensor_count", checkpoint.tensors.size()},
      {"stored_dtypes", checkpoint.stored_dtypes},
      {"files", files},
      {"ignored_tensors", checkpoint.ignored_tensors},
      {"device", device},
      {"dtype", dtype},
  };
  addMixers(c, out);
  return out;
}

void addInspectCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "inspect", "Check a Hugging Face model folder and print its architecture as JSON");
  auto options = std::make_shared<InspectOptions>();
  command->add_option("--model", options->model, "Model folder (config.json + safetensors)")
      ->required();
  // Their spellings (cuda:N, bfloat16, ...) are checked as every model command's are
  // (adoptModelOptionSpellings).
  command->add_option("--device", options->device, "Device the engine would run on")
      ->capture_default_str();
  command->add_option("--dtype", options->dtype,
                      "Compute dtype (default: f32 on cpu, bf16 on cuda)");
  setCommandAction(command, exit_code,
                   [options] { std::cout << inspect(*options).dump(2) << "\n"; });
}

}  // namespace

STUDIO_CLI_COMMAND(10, addInspectCommand);

}  // namespace studio::cli

// studio-cli generate: a prompt continued by the model, streamed to stdout as it is sampled (or
// printed as one JSON object with --json).

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>

#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "app/cli/progress_line.h"
#include "core/common/error.h"
#include "core/model/generation.h"
#include "core/model/inference.h"

namespace studio::cli {

namespace {

struct GenerateOptions {
  ModelOptions model;
  std::string prompt;
  std::string ids;
  bool json = false;
  std::int64_t max_tokens = 64;
  double temperature = 0.0;
  double top_p = 1.0;
  std::int64_t top_k = 0;
  std::uint64_t seed = 0;
  std::vector<std::string> stop;
  std::string chat = "model";
  bool no_think = false;
  std::string progress = "auto";
};

// The checkpoint's chat template, when --prompt is to be written in it (--chat model and a
// template in the folder); a template that is not recognised is an error naming it.
const tokenizer::ChatTemplate* chatFor(const GenerateOptions& options,
                                       const tokenizer::FolderChatTemplate& chat) {
  if (options.chat == "none" || options.prompt.empty() || !chat.present()) return nullptr;
  if (!chat.known) throwArgument("--chat", chat.unknown + "; use --chat none for plain text");
  return &*chat.known;
}

void runGenerate(const GenerateOptions& options) {
  if (options.max_tokens < 1) throwArgument("--max-tokens", "must be at least 1");
  if (options.temperature < 0) throwArgument("--temperature", "must be >= 0 (0 is greedy)");
  if (options.top_p <= 0 || options.top_p > 1) throwArgument("--top-p", "must be in (0, 1]");
  if (options.top_k < 0) throwArgument("--top-k", "must be >= 0 (0 is no limit)");
  const LoadedForCli loaded = loadForCli(options.model);
  const tokenizer::ChatTemplate* chat = chatFor(options, loaded.chat);
  tokenizer::ChatPromptOptions chat_options;
  chat_options.enable_thinking = !options.no_think;
  const std::string text =
      chat ? tokenizer::renderChat(*chat, {{"user", options.prompt, std::nullopt, {}}}, chat_options)
           : options.prompt;
  const CliInput input = readInput(loaded, text, options.ids);

  // The prefill, then the tokens when they stream to a file or pipe. Streamed to the terminal the
  // text itself shows the progress, and a line redrawn under it would garble it; --json adds no
  // per-token hook, which would take decoding off the CUDA graph (decode_graph.h).
  ProgressLine line(progressStyleOf(options.progress));
  const auto prompt_tokens = static_cast<std::int64_t>(input.ids.size());
  line.update("prefill", 0, prompt_tokens);
  torch::NoGradGuard no_grad;
  model::CausalLMImpl& lm = *loaded.model->lm;
  model::ModelState state(lm.numLayers());
  const torch::Tensor logits = model::prefill(lm, state, input.ids);
  line.update("prefill", prompt_tokens, prompt_tokens);
  line.finish();
  model::Sampler sampler({options.temperature, options.top_p, options.top_k, options.seed});
  model::StopCriteria stop;
  stop.max_tokens = options.max_tokens;
  // The checkpoint's EOS ids and, in a chat, the template's end of turn.
  stop.eos_ids = loaded.model->eos_ids;
  if (chat) {
    if (auto id = loaded.tokenizer->tokenId(chat->endOfTurn())) {
      stop.eos_ids.push_back(*id);
    }
  }
  if (!loaded.tokenizer && !options.stop.empty()) {
    throwArgument("--stop", "stop strings need the model folder's tokenizer.json");
  }
  stop.stop_strings = options.stop;
  model::DecodeHooks hooks;
  if (!options.json) {
    const bool count_tokens = !::isatty(STDOUT_FILENO);
    hooks.on_token = [&line, count_tokens](const model::GeneratedToken& token) {
      std::cout << token.text << std::flush;
      if (count_tokens) line.token("generate");
    };
  }
  const auto decode_start = std::chrono::steady_clock::now();
  const model::Generation generation =
      model::generate(lm, state, logits, sampler, stop, loaded.tokenizer, hooks);
  const double decode_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - decode_start).count();
  line.finish();
  if (options.json) {
    nlohmann::json out = {{"prompt_ids", input.ids},
                          {"generated_ids", generation.ids},
                          {"text", loaded.tokenizer ? nlohmann::json(generation.text) : nlohmann::json()},
                          {"stop", model::stopReasonName(generation.stop)}};
    std::cout << out.dump() << "\n";
    return;
  }
  std::cout << "\n";
  std::cerr << "[" << generation.ids.size() << " tokens, stopped: "
            << model::stopReasonName(generation.stop) << ", " << std::fixed << std::setprecision(1)
            << static_cast<double>(generation.ids.size()) / std::max(decode_seconds, 1e-9)
            << " tokens/s]\n";
}

void addGenerateCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("generate", "Continue a prompt with the model");
  auto options = std::make_shared<GenerateOptions>();
  addModelOptions(command, options->model);
  auto* prompt = command->add_option("--prompt", options->prompt, "The prompt text");
  auto* ids = command->add_option("--ids", options->ids, "The prompt as token ids: 1,2,3");
  prompt->excludes(ids);
  command->add_flag("--json", options->json,
                    "Print {\"prompt_ids\", \"generated_ids\", \"text\", \"stop\"} instead of streaming");
  command->add_option("--max-tokens", options->max_tokens, "Tokens to generate at most")
      ->capture_default_str();
  command->add_option("--temperature", options->temperature, "0 is greedy")->capture_default_str();
  command->add_option("--top-p", options->top_p, "Nucleus mass")->capture_default_str();
  command->add_option("--top-k", options->top_k, "0 is no limit")->capture_default_str();
  command->add_option("--seed", options->seed, "Sampling seed")->capture_default_str();
  command->add_option("--stop", options->stop, "Stop strings (repeatable)");
  addProgressOption(command, options->progress);
  addChatOption(command, options->chat);
  command->add_flag("--no-think", options->no_think,
                    "In Qwen3's chat template: write the empty think block (enable_thinking off)");
  setCommandAction(command, exit_code, [options] { runGenerate(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(31, addGenerateCommand);

}  // namespace studio::cli

// studio-cli routing: an SR-TTT model's surprisal routing along a sequence (SPEC §5): per layer
// the per-token surprisal L_t, τ per window, the routed tokens, the residual cache after the
// sequence and its evictions, α, and how the last token (the query that predicts what follows)
// read the cache. The last window, when partial, is judged as v2's whole-sequence pass judges it
// ("open": true). With --item the sequence is the engine's answer prompt of a task item (the ids
// `run` and `sweep` feed the model for it, the prefix `answer-loss` scores the answer after), and
// the JSON says which of its tokens hold the item's targets (the evidence, e.g. the needle).

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>

#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "core/common/error.h"
#include "core/engine/prepared_prompt.h"
#include "core/engine/sweep_plan.h"
#include "core/model/sr_ttt_routing.h"
#include "core/task/task.h"

namespace studio::cli {

namespace {

struct RoutingOptions {
  ModelOptions model;
  std::string text;
  std::string ids;
  std::string item;   // a task item: the sequence is its answer prompt
  std::string reads;  // positions whose cache reads to report; empty: the last one
  bool json = false;
};

void runRouting(const RoutingOptions& options) {
  const LoadedForCli loaded = loadForCli(options.model);
  if (!model::hasSrTttLayers(*loaded.model->lm)) {
    throwError(ErrorKind::Unsupported, loaded.model->dir, "config.json",
               std::string("a ") + model::modelFamilyName(loaded.model->config.family) +
                   " model has no SR-TTT layers: nothing is routed");
  }
  CliInput input;
  nlohmann::json prompt_json;
  if (options.item.empty() && options.text.empty() && options.ids.empty()) {
    throwArgument("--text/--ids/--item", "give exactly one of them");
  }
  if (!options.item.empty()) {
    if (!loaded.tokenizer) {
      throwError(ErrorKind::Config, loaded.model->dir, "tokenizer.json",
                 "is missing: --item is text, so the model needs its tokenizer");
    }
    // The prompt exactly as a run of the item builds it (answer template, item's task
    // description), its targets mapped from characters of the document to tokens of the prompt.
    const engine::PreparedPrompt prompt = engine::preparePrompt(
        engine::specFromItem(task::loadTaskItem(options.item)), *loaded.tokenizer, false);
    input.ids = prompt.ids;
    for (const std::int64_t id : input.ids) {
      if (id < 0 || id >= loaded.model->config.vocab_size) {
        throwError(ErrorKind::Config, loaded.model->dir, "tokenizer.json",
                   "gives token id " + std::to_string(id) + ", outside the model's vocabulary [0, " +
                       std::to_string(loaded.model->config.vocab_size) + ")");
      }
    }
    nlohmann::json targets = nlohmann::json::array();
    for (const Span& span : prompt.target_tokens) targets.push_back({span.start, span.end});
    prompt_json = {{"item", options.item},
                   {"tokens", prompt.length()},
                   {"context_offset", prompt.context_offset},
                   {"context_bytes", prompt.context_bytes},
                   {"target_tokens", targets}};
  } else {
    input = readInput(loaded, options.text, options.ids);
  }
  const auto T = static_cast<std::int64_t>(input.ids.size());
  std::vector<std::int64_t> reads = options.reads.empty() ? std::vector<std::int64_t>{T - 1}
                                                          : parseIntList(options.reads, "--reads");
  for (const std::int64_t position : reads) {
    if (position < 0 || position >= T) {
      throwArgument("--reads", "position " + std::to_string(position) + " is not in [0, " +
                                   std::to_string(T) + ")");
    }
  }
  torch::NoGradGuard no_grad;
  const model::RoutingTrace trace = model::routeSequence(*loaded.model->lm, input.ids, reads);
  nlohmann::json out = trace.toJson();
  if (!prompt_json.is_null()) out["prompt"] = prompt_json;
  if (options.json) {
    std::cout << out.dump() << "\n";
    return;
  }
  if (!prompt_json.is_null()) {
    std::cout << "answer prompt of " << options.item << ": " << T << " tokens, targets at tokens";
    for (const auto& span : prompt_json.at("target_tokens")) {
      std::cout << " " << span[0] << ":" << span[1];
    }
    std::cout << "\n";
  }
  for (const auto& layer : out.at("layers")) {
    const auto& tau = layer.at("tau");
    std::cout << "layer " << layer.at("layer") << ": alpha " << std::setprecision(4)
              << layer.at("alpha").get<double>() << ", " << layer.at("routed").size() << " of " << T
              << " tokens routed, cache " << layer.at("cache").size() << " entries, "
              << layer.at("evictions") << " evictions, tau " << tau.front().at("tau").get<double>()
              << " -> " << tau.back().at("tau").get<double>() << " over " << tau.size()
              << " windows\n";
    for (const auto& read : layer.at("reads")) {
      const double cache = read.at("cache_norm").get<double>();
      const double ttt = read.at("ttt_norm").get<double>();
      std::cout << "  position " << read.at("position") << " read " << read.at("cached").size()
                << " cached tokens; |alpha cache_out| " << cache << " vs |ttt_out| " << ttt << "\n";
    }
  }
}

void addRoutingCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "routing",
      "An SR-TTT model's routing per layer: surprisal per token, tau per window, routed tokens, "
      "the cache after the sequence and its evictions, alpha, and the last token's cache read");
  auto options = std::make_shared<RoutingOptions>();
  addModelOptions(command, options->model);
  auto* text = command->add_option("--text", options->text, "The sequence as text");
  auto* ids = command->add_option("--ids", options->ids, "The sequence as token ids: 1,2,3");
  auto* item = command->add_option(
      "--item", options->item,
      "A task item (JSON as `task generate --json` prints it): route the engine's answer prompt "
      "of it, as `run --item` reads it, and name the tokens of its targets");
  item->check(CLI::ExistingFile);
  text->excludes(ids);
  item->excludes(text);
  item->excludes(ids);
  command->add_option("--reads", options->reads,
                      "Positions whose cache reads to report: 0,5 (default: the last)");
  command->add_flag("--json", options->json,
                    "Print {\"layers\":[{\"layer\",\"alpha\",\"loss\":[T],\"tau\":[{\"window\":"
                    "[start,end],\"p\",\"tau\",\"open\"}],\"routed\",\"cache\",\"evictions\","
                    "\"dropped\",\"v2_total_evictions\",\"reads\"}]}; with --item also \"prompt\":"
                    "{\"item\",\"tokens\",\"context_offset\",\"context_bytes\","
                    "\"target_tokens\":[[start,end]]}");
  setCommandAction(command, exit_code, [options] { runRouting(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(35, addRoutingCommand);

}  // namespace studio::cli

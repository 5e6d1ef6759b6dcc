// studio-cli probe: target mass, logit margins and near-tie counts of chosen queries, per layer
// and head (SPEC §1), as JSON.

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "core/common/error.h"
#include "core/engine/prepared_prompt.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "core/probe/attention_probe.h"

namespace studio::cli {

namespace {

struct ProbeOptions {
  ModelOptions model;
  std::string text;
  std::string ids;
  std::string query_pos;
  std::string targets;
  std::string target_text;
  std::string deltas = "0.5,1,2";
  double epsilon = 0.1;
  bool json = false;
};

std::string deltaKey(double delta) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", delta);
  return buffer;
}

std::vector<double> parseDeltas(const std::string& text) {
  std::vector<double> deltas;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos
                                                                           : comma - start);
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size() || !(value >= 0)) {
      throwArgument("--delta", "'" + part + "' is not a non-negative number");
    }
    deltas.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return deltas;
}

// Token ranges of every occurrence of `needle` in the input text.
std::vector<Span> targetsOfText(const CliInput& input, const std::string& needle) {
  if (input.text.empty()) throwArgument("--target-text", "needs --text (token offsets come from it)");
  std::vector<Span> bytes;
  for (auto at = input.text.find(needle); !needle.empty() && at != std::string::npos;
       at = input.text.find(needle, at + 1)) {
    bytes.push_back({static_cast<std::int64_t>(at), static_cast<std::int64_t>(at + needle.size())});
  }
  if (bytes.empty()) throwArgument("--target-text", "'" + needle + "' does not occur in --text");
  return engine::tokensCovering(input.byte_offsets, bytes);
}

nlohmann::json resultJson(const probe::ProbeResult& result) {
  nlohmann::json layers = nlohmann::json::array();
  for (int l = 0; l < result.num_layers; ++l) {
    nlohmann::json heads = nlohmann::json::array();
    for (int h = 0; h < result.num_heads; ++h) {
      const probe::HeadStats& head = result.heads[l * result.num_heads + h];
      nlohmann::json queries = nlohmann::json::array();
      for (const probe::QueryStats& q : head.queries) {
        nlohmann::json ties = nlohmann::json::object();
        nlohmann::json bounds = nlohmann::json::object();
        nlohmann::json set_bounds = nlohmann::json::object();
        for (std::size_t d = 0; d < result.deltas.size(); ++d) {
          ties[deltaKey(result.deltas[d])] = q.near_ties[d];
          bounds[deltaKey(result.deltas[d])] = q.dilution_bound[d];
          set_bounds[deltaKey(result.deltas[d])] = q.set_bound[d];
        }
        queries.push_back({{"pos", q.pos},
                           {"lse", q.lse},
                           {"mass", q.mass},
                           {"margin", q.margin},
                           {"margin_best", q.margin_best},
                           {"min_gap", q.min_gap},
                           {"target_keys", q.target_keys},
                           {"best_target_weight", q.best_target_weight},
                           {"near_ties", ties},
                           {"dilution_bound", bounds},
                           {"set_bound", set_bounds}});
      }
      heads.push_back({{"head", h}, {"queries", queries}});
    }
    layers.push_back({{"layer", l},
                      {"mean_mass", result.mean_mass_per_layer.at(static_cast<std::size_t>(l))},
                      {"heads", heads}});
  }
  return {{"layers", layers},
          {"mean_mass", result.mean_mass},
          {"mean_margin", result.mean_margin},
          {"context_length", result.context_length},
          {"epsilon", result.epsilon},
          {"required_margin", result.required_margin}};
}

void runProbe(const ProbeOptions& options) {
  if (options.targets.empty() == options.target_text.empty()) {
    throwArgument("--targets/--target-text", "give exactly one of them");
  }
  if (!(options.epsilon > 0 && options.epsilon < 1)) throwArgument("--epsilon", "must be in (0, 1)");
  probe::ProbeOptions probe_options;
  probe_options.deltas = parseDeltas(options.deltas);
  probe_options.epsilon = options.epsilon;
  const LoadedForCli loaded = loadForCli(options.model);
  const CliInput input = readInput(loaded, options.text, options.ids);
  const auto T = static_cast<std::int64_t>(input.ids.size());
  const std::vector<std::int64_t> positions = parseIntList(options.query_pos, "--query-pos");
  for (const std::int64_t p : positions) {
    if (p < 0 || p >= T) {
      throwArgument("--query-pos", "position " + std::to_string(p) + " is outside the input [0, " +
                                       std::to_string(T) + ")");
    }
  }
  const std::vector<Span> targets = options.targets.empty()
                                        ? targetsOfText(input, options.target_text)
                                        : parseRanges(options.targets, "--targets");
  for (const Span& t : targets) {
    if (t.end > T) {
      throwArgument("--targets", "range " + std::to_string(t.start) + ":" + std::to_string(t.end) +
                                     " goes past the input's " + std::to_string(T) + " tokens");
    }
  }

  torch::NoGradGuard no_grad;
  model::CausalLMImpl& lm = *loaded.model->lm;
  model::ModelState cache(lm.numLayers());
  model::prefill(lm, cache, input.ids);
  const probe::AttentionProbe probe(lm, cache, input.ids);
  nlohmann::json out = resultJson(probe.measure(positions, targets, probe_options));
  out["targets"] = nlohmann::json::array();
  for (const Span& t : targets) out["targets"].push_back({t.start, t.end});
  std::cout << (options.json ? out.dump() : out.dump(1)) << "\n";
}

void addProbeCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "probe", "Attention mass, logit margins and near-ties of queries on a target set (JSON)");
  auto options = std::make_shared<ProbeOptions>();
  addModelOptions(command, options->model);
  command->add_option("--text", options->text, "Input text (needs the model's tokenizer.json)");
  command->add_option("--ids", options->ids, "Input token ids: 1,2,3");
  command->add_option("--query-pos", options->query_pos, "Query positions i[,j...]")->required();
  command->add_option("--targets", options->targets, "Token ranges a:b[,c:d] (end exclusive)");
  command->add_option("--target-text", options->target_text,
                      "Target text: every occurrence in --text, mapped to tokens");
  command->add_option("--delta", options->deltas, "Δ values of the near-tie counts m(Δ)")
      ->capture_default_str();
  command->add_option("--epsilon", options->epsilon, "ε of Lemma 2.3's required margin")
      ->capture_default_str();
  command->add_flag("--json", options->json, "Compact JSON on one line");
  setCommandAction(command, exit_code, [options] { runProbe(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(32, addProbeCommand);

}  // namespace studio::cli

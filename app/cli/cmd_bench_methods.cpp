// studio-cli bench methods: App. 15's latency table. For each context length T, the FLOPs of
// N_qTTT qTTT steps of span k (F_qTTT, App. 10) set the budget; thinking gets the N_think
// scratchpad tokens and best-of-N the N_BoN chains (of --bon-tokens each) that cost the same, and
// each method's run is timed end to end (prefill included, as App. 15 measures a single example):
// t_ICL (in-context), t_think, t_BoN and t_qTTT, mean ± std over --repeats runs. The document is a
// needle-in-a-haystack item sized to T tokens of the model's own tokenizer.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "core/common/error.h"
#include "core/engine/flop_model.h"
#include "core/engine/model_cache.h"
#include "core/engine/prepared_prompt.h"
#include "core/engine/run_executor.h"
#include "core/engine/sweep_plan.h"
#include "core/task/task.h"
#include "core/tokenizer/tokenizer.h"

namespace studio::cli {

namespace {

struct BenchMethodsOptions {
  ModelOptions model;
  std::vector<std::int64_t> lengths{2048, 8192};
  std::int64_t steps = 32;        // N_qTTT (App. 15)
  std::int64_t span = 128;        // k
  std::int64_t bon_tokens = 128;  // tokens of each best-of-N chain
  int repeats = 3;
  std::uint64_t seed = 0;
  bool json = false;
};

class BenchMethodsSink : public engine::EventSink {
 public:
  void event(const engine::Event&) override {}
};

struct MethodTiming {
  double mean = 0;
  double stddev = 0;
};

MethodTiming methodTimingOf(const std::vector<double>& seconds) {
  MethodTiming t;
  for (double s : seconds) t.mean += s;
  t.mean /= static_cast<double>(seconds.size());
  for (double s : seconds) t.stddev += (s - t.mean) * (s - t.mean);
  t.stddev = seconds.size() > 1 ? std::sqrt(t.stddev / static_cast<double>(seconds.size() - 1)) : 0;
  return t;
}

// A niah item whose non-thinking prompt is about `tokens` tokens. The prompt's length is the
// template's and question's fixed tokens plus the haystack's, linear in its characters: two
// measurements give the line, the characters for `tokens` are read off it.
engine::RunSpec niahItemOfLength(const BenchMethodsOptions& options,
                                 const engine::CachedModel& cached, std::int64_t tokens) {
  const task::TaskGenerator& niah = *task::TaskRegistry::instance().generator("niah");
  auto specOf = [&](std::int64_t chars) {
    const task::TaskItem item = niah.generate(
        resolveParams("niah", niah.params(), {{"chars", std::max<std::int64_t>(100, chars)}}),
        options.seed);
    engine::RunSpec spec = engine::specFromItem(item);
    spec.model_path = options.model.model;
    spec.device = options.model.device;
    spec.dtype = options.model.dtype;
    spec.seed = options.seed;
    return spec;
  };
  auto lengthOf = [&](std::int64_t chars) {
    return static_cast<double>(
        engine::preparePrompt(specOf(chars), *cached.tokenizer, false, cached.chat).length());
  };
  const std::int64_t low = std::max<std::int64_t>(100, 2 * tokens), high = 2 * low;
  const double low_length = lengthOf(low);
  const double tokens_per_char = (lengthOf(high) - low_length) / static_cast<double>(high - low);
  return specOf(low + std::llround((static_cast<double>(tokens) - low_length) / tokens_per_char));
}

nlohmann::json benchMethodsAtLength(const BenchMethodsOptions& options, engine::ModelCache& models,
                                    std::int64_t length) {
  const engine::CachedModel cached =
      models.get(options.model.model, options.model.device, options.model.dtype);
  if (!cached.tokenizer) {
    throwError(ErrorKind::Tokenizer, options.model.model, "tokenizer.json",
               "bench methods runs the methods on a prompt and needs the model's tokenizer");
  }
  engine::RunSpec base = niahItemOfLength(options, cached, length);
  const auto T = static_cast<double>(
      engine::preparePrompt(base, *cached.tokenizer, false, cached.chat).length());
  const engine::FlopShape shape = engine::FlopShape::of(cached.model->config);
  const double span = std::min(static_cast<double>(options.span), T - 1);
  const double budget = static_cast<double>(options.steps) * engine::qtttStepFlops(shape, T, span);
  const std::int64_t think_tokens = engine::thinkingTokensForBudget(shape, T, budget);
  const auto bon = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(
             budget / engine::generationFlops(shape, T, static_cast<double>(options.bon_tokens))));

  struct Entry {
    const char* name;
    std::string method;
    nlohmann::json params;
  };
  const std::vector<Entry> entries = {
      {"icl", "in_context", nlohmann::json::object()},
      // Exactly N_think tokens (App. 11's FLOP-matched thinking), so t_think is the budget's time.
      {"think", "thinking", {{"think_tokens", think_tokens}, {"exact_think", true}}},
      {"bon", "best_of_n", {{"n", bon}, {"tokens_per_sample", options.bon_tokens}}},
      {"qttt", "qttt", {{"steps", options.steps}, {"span", options.span}}}};
  nlohmann::json row = {{"prompt_tokens", static_cast<std::int64_t>(T)},
                        {"flops_qttt", budget},
                        {"n_think", think_tokens},
                        {"n_bon", bon}};
  for (const Entry& entry : entries) {
    engine::RunSpec spec = base;
    spec.method = entry.method;
    spec.params = entry.params;
    std::vector<double> seconds;
    double flops = 0;
    std::int64_t generated = 0;
    for (int r = 0; r < options.repeats; ++r) {
      BenchMethodsSink sink;
      const engine::RunResult result = engine::executeRun(spec, models, sink, [] { return false; });
      if (result.status != engine::RunStatus::Completed) {
        throwError(ErrorKind::Internal, options.model.model, entry.method,
                   "the benchmark run failed: " + result.error);
      }
      seconds.push_back(result.wall_seconds);
      flops = result.flops.total();
      generated = result.generated_tokens;
    }
    const MethodTiming timing = methodTimingOf(seconds);
    row[std::string("t_") + entry.name] = {{"mean", timing.mean}, {"std", timing.stddev}};
    row[std::string("flops_") + entry.name + "_run"] = flops;
    // Every token generated, scratchpad and answer: the answer's length is the model's (up to
    // 128 tokens, App. 14), so it is shown beside the time.
    row[std::string("generated_") + entry.name] = generated;
  }
  return row;
}

std::string formatMeanStd(const nlohmann::json& timing) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << timing["mean"].get<double>() << " ± "
      << timing["std"].get<double>();
  return out.str();
}

void runBenchMethods(const BenchMethodsOptions& options) {
  if (options.repeats < 1) throwArgument("--repeats", "must be at least 1");
  for (std::int64_t length : options.lengths) {
    if (length < 2 * options.span) {
      throwArgument("--lengths", std::to_string(length) + " is shorter than two spans of " +
                                     std::to_string(options.span) + " tokens");
    }
  }
  engine::ModelCache models(1);
  nlohmann::json rows = nlohmann::json::array();
  for (std::int64_t length : options.lengths)
    rows.push_back(benchMethodsAtLength(options, models, length));
  if (options.json) {
    const engine::CachedModel cached =
        models.get(options.model.model, options.model.device, options.model.dtype);
    std::cout << nlohmann::json({{"model", options.model.model},
                                 {"device", options.model.device},
                                 {"provenance", engine::provenanceNow(cached.provenance).toJson()},
                                 {"steps", options.steps},
                                 {"span", options.span},
                                 {"bon_tokens", options.bon_tokens},
                                 {"repeats", options.repeats},
                                 {"lengths", rows}})
                     .dump(2)
              << "\n";
    return;
  }
  std::cout << "Latency at the FLOPs of " << options.steps << " qTTT steps of k = " << options.span
            << " (App. 15), seconds per example, mean ± std of " << options.repeats
            << " runs, prefill included\n";
  std::cout << std::left << std::setw(8) << "T" << std::right << std::setw(9) << "N_think"
            << std::setw(7) << "N_BoN" << std::setw(18) << "t_ICL" << std::setw(18) << "t_think"
            << std::setw(18) << "t_BoN" << std::setw(18) << "t_qTTT"
            << "\n";
  for (const auto& row : rows) {
    std::cout << std::left << std::setw(8) << row["prompt_tokens"].get<std::int64_t>() << std::right
              << std::setw(9) << row["n_think"].get<std::int64_t>() << std::setw(7)
              << row["n_bon"].get<std::int64_t>() << std::setw(18) << formatMeanStd(row["t_icl"])
              << std::setw(18) << formatMeanStd(row["t_think"]) << std::setw(18)
              << formatMeanStd(row["t_bon"]) << std::setw(18) << formatMeanStd(row["t_qttt"])
              << "\n";
    std::cout << "        generated tokens: thinking " << row["generated_think"].get<std::int64_t>()
              << " (N_think " << row["n_think"].get<std::int64_t>() << " and the answer), best-of-N "
              << row["generated_bon"].get<std::int64_t>() << ", qTTT's answer "
              << row["generated_qttt"].get<std::int64_t>() << "\n";
  }
}

void addBenchMethodsCommand(CLI::App& app, int& exit_code) {
  auto* command = benchCommand(app).add_subcommand(
      "methods", "App. 15's table: t_ICL, t_think, t_BoN and t_qTTT at the FLOPs of N qTTT steps");
  auto options = std::make_shared<BenchMethodsOptions>();
  addModelOptions(command, options->model);
  command->add_option("--lengths", options->lengths, "Context lengths T in prompt tokens")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--steps", options->steps, "N_qTTT, the steps that set the FLOP budget")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--span", options->span, "k: qTTT span tokens")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command
      ->add_option("--bon-tokens", options->bon_tokens, "Scratchpad tokens of each best-of-N chain")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--repeats", options->repeats, "Timed runs per method")
      ->capture_default_str();
  command->add_option("--seed", options->seed, "Seed of the item and the runs")
      ->capture_default_str();
  command->add_flag("--json", options->json, "Print JSON");
  setCommandAction(command, exit_code, [options] { runBenchMethods(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(168, addBenchMethodsCommand);

}  // namespace studio::cli

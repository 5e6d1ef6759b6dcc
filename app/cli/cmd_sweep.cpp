// studio-cli sweep: runs a grid of task × length × method × seed into a session, with progress,
// resuming where a previous call stopped (cells already completed in the session are skipped),
// and prints accuracy and target mass per method and length (Figure 1 and App. 12 of the paper).
// With lr_selection in the configuration it first runs the validation split and picks one
// method's lr per task (App. 11; core/engine/lr_selection.h); --log-samples writes every run as
// a JSON line (sessions/sample_log.h).
// With --slurm it submits the grid as a Slurm array job instead (sweep_array_submit.h); `sweep
// status` (cmd_sweep_status.cpp) follows that job.

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "analysis/wilson_interval.h"
#include "app/cli/cli_command.h"
#include "app/cli/progress_line.h"
#include "app/cli/sweep_array_submit.h"
#include "app/cli/sweep_config_file.h"
#include "core/common/error.h"
#include "core/engine/flop_model.h"
#include "core/engine/lr_selection.h"
#include "core/engine/model_cache.h"
#include "core/engine/prepared_prompt.h"
#include "core/engine/run_executor.h"
#include "core/engine/sweep_plan.h"
#include "core/model/model_loader.h"
#include "sessions/readable_runs.h"
#include "sessions/run_recorder.h"
#include "sessions/sample_log.h"
#include "sessions/session_reader.h"
#include "sessions/sweep_cell_runs.h"

namespace studio::cli {

namespace {

struct SweepOptions {
  std::string config;
  std::string session;
  std::string shard = "0/1";
  bool json = false;
  bool slurm = false;
  bool no_rope = false;
  std::string log_samples;
  std::string progress = "auto";
  // With lr_selection: "validation" runs only the validation cells, "test" only the test cells
  // with the lr chosen from `validation_session`'s validation runs; "all" both, in order.
  std::string stage = "all";
  std::string validation_session;
  SweepArrayOptions array;
};


struct Tally {
  int runs = 0;
  int correct = 0;
  double mass = 0;
  int mass_runs = 0;
  double flops = 0;
  double seconds = 0;
};

// What one sweep call says on stderr about the damaged runs it left out: the validation trials,
// the sample log and the summary each read the session, and a damaged run is named once. The
// error names the session file, so the same run of another file (--validation-session) is not
// taken for it.
class LeftOutRuns {
 public:
  void say(const std::vector<sessions::UnreadableRun>& unreadable) {
    std::vector<sessions::UnreadableRun> fresh;
    for (const sessions::UnreadableRun& run : unreadable) {
      if (m_said.insert(run.error).second) fresh.push_back(run);
    }
    std::cerr << sessions::unreadableRunsReport(fresh);
  }

 private:
  std::set<std::string> m_said;
};

// The completed runs of the session and their specs, calling use(run, spec) for each; a run whose
// spec cannot be read is left out and said through `left_out`.
template <class Use>
void forEachCompletedSpec(const sessions::SessionStore& store, LeftOutRuns& left_out,
                          const Use& use) {
  const sessions::SessionReader reader(store);
  std::vector<sessions::RunSummary> completed;
  for (const sessions::RunSummary& run : reader.listRuns()) {
    if (run.status == engine::RunStatus::Completed) completed.push_back(run);
  }
  const auto read = [&](const sessions::RunSummary& run) { return reader.loadSpec(run.id); };
  left_out.say(sessions::readEachRun(completed, read, use));
}

// Accuracy and mean target mass per (task, method label, length), over every completed sweep run
// of the session (this call's and earlier ones').
nlohmann::json summarize(const sessions::SessionStore& store, LeftOutRuns& left_out) {
  std::map<std::tuple<std::string, std::string, std::int64_t>, Tally> tallies;
  forEachCompletedSpec(
      store, left_out, [&](const sessions::RunSummary& run, const engine::RunSpec& spec) {
        if (!spec.task_meta.contains("sweep_key")) return;
        Tally& t = tallies[{spec.task, spec.task_meta.value("sweep_label", spec.method),
                            spec.task_meta.value("sweep_length", std::int64_t{0})}];
        ++t.runs;
        t.correct += run.correct.value_or(false) ? 1 : 0;
        if (run.target_mass) {
          t.mass += *run.target_mass;
          ++t.mass_runs;
        }
        t.flops += run.flops_prefill + run.flops_extra;
        t.seconds += run.wall_seconds;
      });
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, t] : tallies) {
    const analysis::ProportionInterval ci = analysis::wilsonInterval(t.correct, t.runs);
    rows.push_back(
        {{"task", std::get<0>(key)},
         {"method", std::get<1>(key)},
         {"length", std::get<2>(key)},
         {"runs", t.runs},
         {"correct", t.correct},
         {"accuracy", static_cast<double>(t.correct) / t.runs},
         {"accuracy_ci95", {ci.low, ci.high}},
         {"target_mass", t.mass_runs ? nlohmann::json(t.mass / t.mass_runs) : nlohmann::json()},
         {"mean_flops", t.flops / t.runs},
         {"mean_wall_seconds", t.seconds / t.runs}});
  }
  return rows;
}

std::string formatFixed(double value) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << value;
  return out.str();
}

void printTable(const nlohmann::json& rows) {
  std::cout << std::left << std::setw(10) << "task" << std::setw(16) << "method" << std::right
            << std::setw(8) << "length" << std::setw(6) << "runs" << std::setw(10) << "accuracy"
            << std::setw(16) << "95% Wilson CI" << std::setw(13) << "target mass" << std::setw(12)
            << "GFLOPs" << std::setw(10) << "seconds"
            << "\n";
  for (const auto& row : rows) {
    std::cout << std::left << std::setw(10) << row["task"].get<std::string>() << std::setw(16)
              << row["method"].get<std::string>() << std::right << std::setw(8)
              << row["length"].get<std::int64_t>() << std::setw(6) << row["runs"].get<int>()
              << std::fixed << std::setprecision(3) << std::setw(10)
              << row["accuracy"].get<double>() << std::setw(16)
              << ("[" + formatFixed(row["accuracy_ci95"][0].get<double>()) + ", " +
                  formatFixed(row["accuracy_ci95"][1].get<double>()) + "]")
              << std::setw(13);
    if (row["target_mass"].is_null()) {
      std::cout << "-";
    } else {
      std::cout << std::setprecision(5) << row["target_mass"].get<double>();
    }
    std::cout << std::setprecision(2) << std::setw(12) << row["mean_flops"].get<double>() / 1e9
              << std::setw(10) << row["mean_wall_seconds"].get<double>() << "\n";
  }
}

// Runs the cells the session does not hold yet, counting what it ran, skipped and lost.
class CellRunner {
 public:
  CellRunner(sessions::SessionStore& store, sessions::SessionWriter& writer, ProgressStyle style)
      : m_store(store),
        m_writer(writer),
        m_done(sessions::completedCellKeys(store)),
        m_style(style),
        m_line(style) {}

  // `stage` prefixes the progress lines ("validation "). Each cell's result is a line of its own;
  // with the line style the running cell's stage is shown below them as it goes.
  void run(const engine::SweepConfig& config, const std::vector<engine::SweepCell>& cells,
           const std::string& stage) {
    std::size_t to_run = 0;
    for (const engine::SweepCell& cell : cells) to_run += m_done.count(cell.key()) ? 0 : 1;
    std::size_t ran_here = 0;
    double seconds_here = 0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const engine::SweepCell& cell = cells[i];
      if (m_done.count(cell.key())) {
        ++skipped;
        continue;
      }
      const task::TaskGenerator& generator =
          *task::TaskRegistry::instance().generator(cell.task->task);
      nlohmann::json task_params = cell.task->params;
      task_params[cell.task->length_param] = cell.length;
      const task::TaskItem item = generator.generate(
          resolveParams(cell.task->task, generator.params(), task_params), cell.seed);
      engine::RunSpec spec = engine::cellSpec(config, cell, item);
      if (config.budget_think_tokens > 0) {
        const engine::CachedModel cached = m_models.get(config.model, config.device, config.dtype);
        if (!cached.tokenizer) {
          throwError(ErrorKind::Tokenizer, config.model, "tokenizer.json",
                     "a sweep needs the model's tokenizer");
        }
        const auto prompt = engine::preparePrompt(spec, *cached.tokenizer, false, cached.chat);
        spec.budget_flops = engine::generationFlops(
            engine::FlopShape::of(cached.model->config), static_cast<double>(prompt.length()),
            static_cast<double>(config.budget_think_tokens));
      }
      sessions::RunRecorder recorder(m_store, m_writer);
      const std::string cell_text =
          "[" + stage + std::to_string(i + 1) + "/" + std::to_string(cells.size()) + "] " +
          cell.key();
      // A plain log names the cell before it runs, so a cell that hangs is known.
      if (m_style == ProgressStyle::Plain) std::cerr << cell_text << " ... " << std::flush;
      m_line.setPrefix(cell_text);
      ProgressEvents progress(m_line, &recorder, ProgressEvents::AtEnd::Erase);
      const engine::RunResult result = engine::executeRun(
          spec, m_models, m_style == ProgressStyle::Line ? static_cast<engine::EventSink&>(progress)
                                                         : recorder,
          [] { return false; });
      ++ran;
      ++ran_here;
      seconds_here += result.wall_seconds;
      std::ostringstream outcome;
      if (result.status != engine::RunStatus::Completed) {
        ++failed;
        outcome << engine::runStatusName(result.status) << ": " << result.error;
      } else {
        outcome << (result.correct.value_or(false) ? "correct" : "wrong") << " ("
                << std::setprecision(3) << result.wall_seconds << " s)";
      }
      if (ran_here < to_run) {
        outcome << " · ETA "
                << etaText(seconds_here / static_cast<double>(ran_here) *
                                static_cast<double>(to_run - ran_here));
      }
      if (m_style == ProgressStyle::Line) {
        m_line.note(cell_text + " ... " + outcome.str());
      } else if (m_style == ProgressStyle::Plain) {
        std::cerr << outcome.str() << "\n";
      }
    }
  }

  std::size_t ran = 0, skipped = 0, failed = 0;

 private:
  sessions::SessionStore& m_store;
  sessions::SessionWriter& m_writer;
  const std::set<std::string> m_done;
  const ProgressStyle m_style;
  ProgressLine m_line;
  engine::ModelCache m_models;
};

// The completed validation runs of the method labelled `label` (this call's and earlier ones').
std::vector<engine::LrTrial> validationTrials(const sessions::SessionStore& store,
                                              const std::string& label, LeftOutRuns& left_out) {
  std::vector<engine::LrTrial> trials;
  forEachCompletedSpec(
      store, left_out, [&](const sessions::RunSummary& run, const engine::RunSpec& spec) {
        if (spec.task_meta.value("lr_validation_of", "") != label || !spec.params.contains("lr")) {
          return;
        }
        trials.push_back({spec.task, spec.params["lr"].get<double>(), run.correct.value_or(false),
                          run.target_mass});
      });
  return trials;
}

nlohmann::json lrChoicesJson(const engine::LrSelection& selection,
                             const std::vector<engine::LrChoice>& choices) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const engine::LrChoice& choice : choices) {
    nlohmann::json scores = nlohmann::json::array();
    for (const engine::LrScore& score : choice.scores) {
      scores.push_back({{"lr", score.lr},
                        {"runs", score.runs},
                        {"correct", score.correct},
                        {"accuracy", score.accuracy},
                        {"target_mass", score.target_mass ? nlohmann::json(*score.target_mass)
                                                          : nlohmann::json()}});
    }
    tasks.push_back({{"task", choice.task}, {"lr", choice.lr}, {"validation", scores}});
  }
  return {{"method", selection.label},
          {"validation_seeds", selection.validation_seeds},
          {"tasks", tasks}};
}

void printLrChoices(const engine::LrSelection& selection,
                    const std::vector<engine::LrChoice>& choices) {
  std::cout << "lr selection for " << selection.label << " on " << selection.validation_seeds.size()
            << " validation seed(s):\n";
  for (const engine::LrChoice& choice : choices) {
    std::cout << "  " << choice.task << ": lr " << choice.lr << " (validation accuracy";
    for (const engine::LrScore& score : choice.scores) {
      std::cout << " " << score.lr << "→" << formatFixed(score.accuracy);
    }
    std::cout << ")\n";
  }
}

void runSweep(const SweepOptions& options) {
  if (options.config.empty()) throwArgument("--config", "a sweep needs its configuration");
  if (!options.validation_session.empty() && options.stage != "test") {
    throwArgument("--validation-session", "is read by --stage test only");
  }
  nlohmann::json config_json = readSweepConfigJson(options.config);
  if (options.no_rope) {
    if (options.slurm) {
      throwArgument("--no-rope",
                    "the array job reads the configuration file; put \"rope\": "
                    "false in it instead");
    }
    config_json["rope"] = false;
  }
  if (options.slurm) {
    if (options.shard != "0/1") {
      throwArgument("--shard", "--slurm chooses the shards itself; leave --shard out");
    }
    if (config_json.contains("lr_selection") && options.stage == "all") {
      throwArgument("--slurm",
                    "a sweep that selects its lr validates every task before its test cells; "
                    "submit it in two stages, each into its own --out: --stage validation, "
                    "then (its shard sessions merged) --stage test --validation-session MERGED");
    }
    if (!options.log_samples.empty()) {
      throwArgument("--log-samples",
                    "with --slurm, merge the shard sessions and run `export "
                    "--samples` on the result");
    }
    if (!options.session.empty()) {
      throwArgument("--session",
                    "--slurm writes one session per shard into --out; leave --session out");
    }
    SweepArrayOptions array = options.array;
    array.json = options.json;
    array.stage = options.stage;
    array.validation_session = options.validation_session;
    submitSweepArray(array, options.config, config_json);
    return;
  }
  if (options.session.empty()) {
    throwArgument("--session", "a sweep needs the session it records into");
  }
  engine::SweepConfig config = sweepConfigFrom(config_json, options.config);
  engine::stageSweep(config, options.stage);  // refuses a stage the sweep does not have
  if (config.lr_selection && options.shard != "0/1" && options.stage == "all") {
    throwArgument("--shard",
                  "a sweep that selects its lr validates every task before its test cells; "
                  "shard it in two stages: --stage validation on every shard, `studio-cli "
                  "merge` of their sessions, then --stage test --validation-session MERGED");
  }
  sessions::SessionStore store(options.session);
  if (store.readOnly()) {
    throwError(ErrorKind::Session, options.session, "",
               "the session is being written by another process; a sweep needs to write it");
  }
  sessions::SessionWriter writer(store);
  CellRunner runner(store, writer, progressStyleOf(options.progress));
  LeftOutRuns left_out;
  std::vector<engine::LrChoice> lr_choices;
  if (config.lr_selection) {
    // The validation split first: its runs are sweep cells too (resumable, in the summary).
    const engine::SweepConfig validation = engine::validationSweep(config);
    const std::vector<engine::SweepCell> validation_cells = engine::expandSweep(validation);
    if (options.stage != "test") {
      runner.run(validation, engine::shardOf(validation_cells, options.shard), "validation ");
      writer.flush();
    }
    if (options.stage != "validation") {
      // The lr is chosen on every validation cell, never on a shard's part of them.
      const std::string source =
          options.validation_session.empty() ? options.session : options.validation_session;
      std::optional<sessions::SessionStore> other;
      if (!options.validation_session.empty()) {
        sessions::OpenOptions read_only;
        read_only.access = sessions::OpenOptions::Access::ReadOnly;
        other.emplace(options.validation_session, read_only);
      }
      const sessions::SessionStore& trials_store = other ? *other : store;
      const std::size_t missing = sessions::cellsNotCompleted(trials_store, validation_cells);
      if (missing > 0) {
        throwError(ErrorKind::Argument, source,
                   options.validation_session.empty() ? "--session" : "--validation-session",
                   std::to_string(missing) + " of the " + std::to_string(validation_cells.size()) +
                       " validation cells are not completed there; run --stage validation on "
                       "every shard and merge their sessions first");
      }
      lr_choices = engine::selectLearningRates(
          config.lr_selection->lrs,
          validationTrials(trials_store, config.lr_selection->label, left_out));
      for (const engine::LrChoice& choice : lr_choices) {
        config.selected_lrs[choice.task] = choice.lr;
      }
    }
  }
  if (options.stage != "validation") {
    runner.run(config, engine::shardOf(engine::expandSweep(config), options.shard), "");
  }
  const std::size_t ran = runner.ran, skipped = runner.skipped, failed = runner.failed;
  writer.flush();
  std::cerr << "sweep: " << ran << " run, " << skipped << " already in the session, " << failed
            << " failed\n";
  if (!options.log_samples.empty()) {
    const sessions::ExportSummary samples =
        sessions::writeSampleLog(store, {}, options.log_samples);
    left_out.say(samples.unreadable);
    std::cerr << "sweep: " << samples.runs << " run(s) written to " << options.log_samples << "\n";
  }
  const nlohmann::json rows = summarize(store, left_out);
  if (options.json) {
    nlohmann::json out = {
        {"ran", ran}, {"skipped", skipped}, {"failed", failed}, {"summary", rows}};
    if (config.lr_selection && options.stage != "validation") {
      out["lr_selection"] = lrChoicesJson(*config.lr_selection, lr_choices);
    }
    std::cout << out.dump() << "\n";
  } else {
    if (config.lr_selection && options.stage != "validation") {
      printLrChoices(*config.lr_selection, lr_choices);
    }
    printTable(rows);
  }
}

void addSweepCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "sweep",
      "Run a grid of task × length × method × seed into a session (resumable), or as a "
      "Slurm array job (--slurm)");
  auto options = std::make_shared<SweepOptions>();
  command->add_option("--config", options->config, "Sweep configuration (JSON)");
  command->add_option("--session", options->session, "Session file (created if missing)");
  command->add_option("--shard", options->shard, "Run only cells with index % n == i: i/n")
      ->capture_default_str();
  command->add_flag("--json", options->json, "Print the summary as JSON");
  addProgressOption(command, options->progress);
  command
      ->add_option("--stage", options->stage,
                   "With lr_selection: validation (only the validation cells), test (only the "
                   "test cells, with the lr chosen on --validation-session), or all")
      ->check(CLI::IsMember({"all", "validation", "test"}))
      ->capture_default_str();
  command->add_option("--validation-session", options->validation_session,
                      "--stage test: the session holding every validation cell (the shards' "
                      "merged sessions; default: --session)");
  command->add_option("--log-samples", options->log_samples,
                      "Write every run of the session as one JSON line (task, item, seed, length, "
                      "method, params, prompt hash, output, answer, references, score, target "
                      "mass) to this file, as lm-evaluation-harness's --log_samples");
  command->add_flag("--no-rope", options->no_rope,
                    "The No-RoPE ablation (App. 12) for every cell, as \"rope\": false in the "
                    "configuration; labels gain +no_rope");
  // The Slurm array job (docs/cluster.md).
  command->add_flag(
      "--slurm", options->slurm,
      "Write and submit (sbatch) an array job whose task i runs shard i/n into --out");
  command->add_option("--out", options->array.out,
                      "--slurm: output folder for the shard sessions, script and logs (shared "
                      "by the nodes)");
  command->add_option("--partition", options->array.partition, "--slurm: the partition");
  command
      ->add_option("--gpus-per-task", options->array.gpus_per_task,
                   "--slurm: GPUs per array task (0: none requested)")
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--time", options->array.time,
                   "--slurm: time limit of one task ([D-]HH:MM:SS); shards are sized to fill "
                   "80 % of it")
      ->capture_default_str();
  command
      ->add_option("--array-limit", options->array.array_limit,
                   "--slurm: at most K tasks at once (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--cell-seconds", options->array.cell_seconds,
                   "--slurm: estimated seconds of one cell, for cells --timings did not measure")
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--timings", options->array.timings,
                   "--slurm: sessions whose completed runs of this sweep give cell times")
      ->check(CLI::ExistingFile);
  command->add_flag("--dry-run", options->array.dry_run,
                    "--slurm: write the script (and print how to submit it) without sbatch");
  command->require_subcommand(0, 1);
  setCommandAction(command, exit_code, [options, command] {
    if (!command->get_subcommands().empty()) return;  // sweep status
    runSweep(*options);
  });
}

}  // namespace

STUDIO_CLI_COMMAND(50, addSweepCommand);

}  // namespace studio::cli

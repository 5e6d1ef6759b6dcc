#include "app/cli/sweep_array_submit.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "app/cli/array_task_query.h"
#include "app/cli/process_capture.h"
#include "app/cli/shard_session_runs.h"
#include "app/cli/sweep_config_file.h"
#include "core/cluster/array_task_states.h"
#include "core/cluster/cell_cost_estimate.h"
#include "core/cluster/shard_sizing.h"
#include "core/cluster/slurm_array_script.h"
#include "core/cluster/slurm_time_limit.h"
#include "core/cluster/sweep_array_manifest.h"
#include "core/common/error.h"
#include "core/engine/lr_selection.h"
#include "sessions/session_store.h"
#include "sessions/sweep_cell_runs.h"

namespace studio::cli {

namespace {

namespace fs = std::filesystem;

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

void writeArrayFile(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::trunc);
  file << text;
  if (!file) throwError(ErrorKind::Io, path, "", "cannot write");
}

// Seconds of every cell of the sweep, from measured runs where there are some.
std::vector<double> cellSecondsOf(const std::vector<engine::SweepCell>& cells,
                                  const SweepArrayOptions& options) {
  std::vector<cluster::MeasuredCell> measured;
  for (const std::string& path : options.timings) {
    const sessions::SessionStore store(
        path, {sessions::OpenOptions::Access::ReadOnly, sessions::OpenOptions::Check::HeaderOnly});
    for (const sessions::SweepCellRun& run : sessions::sweepCellRuns(store)) {
      if (run.status == engine::RunStatus::Completed) {
        measured.push_back({run.label, run.length, run.wall_seconds});
      }
    }
  }
  const cluster::CellCostEstimate estimate(
      measured,
      options.cell_seconds > 0 ? std::optional<double>(options.cell_seconds) : std::nullopt);
  std::vector<double> seconds;
  seconds.reserve(cells.size());
  for (const engine::SweepCell& cell : cells) {
    seconds.push_back(estimate.seconds(cell.method->label, cell.length));
  }
  return seconds;
}

// "45 s", "12.5 min", "3.1 h".
std::string durationText(double seconds) {
  std::ostringstream text;
  if (seconds < 120) {
    text << std::fixed << std::setprecision(0) << seconds << " s";
  } else if (seconds < 7200) {
    text << std::fixed << std::setprecision(1) << seconds / 60 << " min";
  } else {
    text << std::fixed << std::setprecision(1) << seconds / 3600 << " h";
  }
  return text.str();
}

}  // namespace

void submitSweepArray(const SweepArrayOptions& options, const std::string& config_path,
                      const nlohmann::json& config_json) {
  if (options.out.empty()) throwArgument("--out", "--slurm needs the output folder --out DIR");
  const engine::SweepConfig config = sweepConfigFrom(config_json, config_path);
  const engine::SweepConfig staged = engine::stageSweep(config, options.stage);
  const std::int64_t time_limit = cluster::parseSlurmTimeLimit(options.time, "--time");
  const std::vector<engine::SweepCell> cells = engine::expandSweep(staged);
  std::vector<std::string> sweep_arguments;
  if (options.stage != "all") sweep_arguments = {"--stage", options.stage};
  if (options.stage == "test") {
    // The tasks choose the lr from every validation cell: they must all be there now.
    if (options.validation_session.empty()) {
      throwArgument("--validation-session",
                    "--stage test needs the merged sessions of the validation stage's shards");
    }
    const std::string validation =
        fs::absolute(options.validation_session).lexically_normal().string();
    const sessions::SessionStore store(
        validation, {sessions::OpenOptions::Access::ReadOnly, sessions::OpenOptions::Check::Quick});
    const std::size_t missing =
        sessions::cellsNotCompleted(store, engine::expandSweep(engine::validationSweep(config)));
    if (missing > 0) {
      throwError(ErrorKind::Argument, validation, "--validation-session",
                 std::to_string(missing) +
                     " validation cells are not completed there; finish the validation stage "
                     "and merge its shard sessions first");
    }
    sweep_arguments.insert(sweep_arguments.end(), {"--validation-session", validation});
  }

  // Everything is checked before the folder is created or written.
  const std::string out_dir = fs::absolute(options.out).lexically_normal().string();
  const std::string config_copy = (fs::path(out_dir) / cluster::kSweepConfigFile).string();
  const std::string manifest_path = (fs::path(out_dir) / cluster::kSweepManifestFile).string();
  const std::string script_path = (fs::path(out_dir) / cluster::kSweepScriptFile).string();
  if (fs::exists(config_copy) && readSweepConfigJson(config_copy) != config_json) {
    throwError(ErrorKind::Argument, config_copy, "--out",
               "the folder holds a sweep of another configuration than " + config_path +
                   "; give another --out");
  }
  cluster::SweepArrayManifest manifest;
  std::optional<cluster::ShardSizing> sizing;
  if (fs::exists(manifest_path)) {
    manifest = cluster::SweepArrayManifest::read(manifest_path);
    if (manifest.stage != options.stage) {
      throwError(ErrorKind::Argument, manifest_path, "--stage",
                 "the folder holds the shards of stage " + manifest.stage + "; give stage " +
                     options.stage + " its own --out");
    }
  } else {
    sizing = cluster::sizeShards(cellSecondsOf(cells, options), time_limit);
    manifest.shards = sizing->shards;
    manifest.stage = options.stage;
  }
  // A shard runs again only when cells are left and no earlier task of it is still queued or
  // running (two tasks must never write one session).
  const ArrayTaskQuery queue = queryArrayTasks(manifest);
  std::vector<std::size_t> tasks;
  std::size_t cells_left = 0, shards_active = 0;
  for (std::size_t shard = 0; shard < manifest.shards; ++shard) {
    const auto state = queue.states.find(shard);
    if (state != queue.states.end() && cluster::arrayTaskActive(state->second)) {
      ++shards_active;
      continue;
    }
    std::set<std::string> completed;
    for (const sessions::SweepCellRun& run : shardSessionRuns(out_dir, shard, manifest.shards)) {
      if (run.status == engine::RunStatus::Completed) completed.insert(run.key);
    }
    std::size_t left = 0;
    const std::string shard_spec = std::to_string(shard) + "/" + std::to_string(manifest.shards);
    for (const engine::SweepCell& cell : engine::shardOf(cells, shard_spec)) {
      left += completed.count(cell.key()) ? 0 : 1;
    }
    if (left > 0) tasks.push_back(shard);
    cells_left += left;
  }
  std::string script;
  if (!tasks.empty()) {
    cluster::SlurmArrayJob job;
    job.studio_cli = fs::read_symlink("/proc/self/exe").string();
    job.config = config_copy;
    job.out_dir = out_dir;
    job.work_dir = fs::current_path().string();
    job.shards = manifest.shards;
    job.tasks = tasks;
    job.partition = options.partition;
    job.gpus_per_task = options.gpus_per_task;
    job.time_limit_seconds = time_limit;
    job.array_limit = options.array_limit;
    job.sweep_arguments = sweep_arguments;
    script = cluster::slurmArrayScript(job);
  }

  std::error_code error;
  fs::create_directories(fs::path(out_dir) / "logs", error);
  if (error) throwError(ErrorKind::Io, out_dir, "--out", "cannot create: " + error.message());
  if (!fs::exists(config_copy)) writeArrayFile(config_copy, config_json.dump(2) + "\n");
  manifest.write(manifest_path);

  std::cerr << "sweep: " << cells.size() << " cells in " << manifest.shards << " shards";
  if (sizing) {
    std::cerr << " (estimated " << durationText(sizing->total_seconds) << " in all, at most "
              << durationText(sizing->largest_shard_seconds) << " a shard; --time " << options.time
              << " plans " << durationText(sizing->budget_seconds) << " a shard)";
  }
  std::cerr << "\n";
  for (const std::string& note : queue.notes) std::cerr << "note: " << note << "\n";
  if (shards_active > 0) {
    std::cerr << shards_active << " shard(s) still queued or running are not submitted again\n";
  }
  const std::string watch = "studio-cli sweep status --out " + out_dir;
  nlohmann::json summary = {{"shards", manifest.shards},
                            {"cells", cells.size()},
                            {"cells_left", cells_left},
                            {"tasks", tasks.size()},
                            {"watch", watch}};
  if (tasks.empty()) {
    std::cerr << "nothing to submit: every shard is complete or still in Slurm's queue\n";
    if (options.json) std::cout << summary.dump() << "\n";
    return;
  }

  writeArrayFile(script_path, script);
  const std::string array = cluster::arrayIndexSpec(tasks, options.array_limit);
  summary["script"] = script_path;
  summary["array"] = array;

  if (options.dry_run) {
    (options.json ? std::cerr : std::cout)
        << "dry run: wrote " << script_path << " (array " << array << ", " << tasks.size()
        << " task(s), " << cells_left << " cells left); submit it with: sbatch " << script_path
        << "\n";
    if (options.json) std::cout << summary.dump() << "\n";
    return;
  }

  const CapturedProcess sbatch = runCapturing({"sbatch", "--parsable", script_path});
  if (!sbatch.started) {
    throwError(ErrorKind::Io, script_path, "sbatch", "cannot run sbatch: " + sbatch.err);
  }
  std::string job_id = sbatch.out.substr(0, sbatch.out.find_first_of(";\n"));
  if (sbatch.exit_code != 0 || job_id.empty()) {
    throwError(ErrorKind::Io, script_path, "sbatch",
               "sbatch failed (exit " + std::to_string(sbatch.exit_code) + "): " + sbatch.err);
  }
  manifest.submissions.push_back({job_id, array, options.time, utcNow()});
  manifest.write(manifest_path);
  summary["job_id"] = job_id;
  std::ostream& report = options.json ? std::cerr : std::cout;
  report << "submitted job " << job_id << ": array " << array << ", " << tasks.size()
         << " task(s), " << cells_left << " cells left\n"
         << "watch it: " << watch << "   (or: squeue -j " << job_id << ")\n"
         << "merge it: studio-cli merge --out merged.sqlite " << out_dir << "/shard-*-of-"
         << manifest.shards << ".sqlite\n";
  if (options.json) std::cout << summary.dump() << "\n";
}

}  // namespace studio::cli

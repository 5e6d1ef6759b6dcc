// studio-cli sweep status --out DIR: how far a sweep submitted with `sweep --slurm` has come, per
// shard: cells done, running, failed and pending, from the shard sessions in DIR and the states
// squeue and sacct report for the array's tasks.

#include <filesystem>
#include <iomanip>
#include <iostream>

#include "app/cli/array_task_query.h"
#include "app/cli/cli_command.h"
#include "app/cli/shard_session_runs.h"
#include "app/cli/sweep_config_file.h"
#include "core/cluster/array_task_states.h"
#include "core/cluster/shard_progress.h"
#include "core/cluster/sweep_array_manifest.h"
#include "core/common/error.h"
#include "core/engine/lr_selection.h"

namespace studio::cli {

namespace {

struct SweepStatusOptions {
  std::string out;
  bool json = false;
};

struct ShardRow {
  std::size_t shard = 0;
  std::string slurm_state;  // "-" when Slurm has no word of it
  cluster::ShardProgress progress;
};

void printStatusTable(const std::vector<ShardRow>& rows) {
  std::cout << std::left << std::setw(7) << "shard" << std::setw(14) << "slurm" << std::right
            << std::setw(7) << "cells" << std::setw(7) << "done" << std::setw(9) << "running"
            << std::setw(8) << "failed" << std::setw(9) << "pending"
            << "\n";
  cluster::ShardProgress total;
  for (const ShardRow& row : rows) {
    const cluster::ShardProgress& p = row.progress;
    std::cout << std::left << std::setw(7) << row.shard << std::setw(14) << row.slurm_state
              << std::right << std::setw(7) << p.cells << std::setw(7) << p.done << std::setw(9)
              << p.running << std::setw(8) << p.failed << std::setw(9) << p.pending << "\n";
    total.cells += p.cells;
    total.done += p.done;
    total.running += p.running;
    total.failed += p.failed;
    total.pending += p.pending;
  }
  std::cout << std::left << std::setw(21) << "all" << std::right << std::setw(7) << total.cells
            << std::setw(7) << total.done << std::setw(9) << total.running << std::setw(8)
            << total.failed << std::setw(9) << total.pending << "\n";
}

void showSweepStatus(const SweepStatusOptions& options) {
  namespace fs = std::filesystem;
  const fs::path dir(options.out);
  const std::string manifest_path = (dir / cluster::kSweepManifestFile).string();
  if (!fs::exists(manifest_path)) {
    throwError(ErrorKind::Argument, options.out, "--out",
               "holds no sweep array (no " + std::string(cluster::kSweepManifestFile) +
                   "); submit one with `studio-cli sweep --slurm --out DIR`");
  }
  const cluster::SweepArrayManifest manifest = cluster::SweepArrayManifest::read(manifest_path);
  const std::string config_path = (dir / cluster::kSweepConfigFile).string();
  const engine::SweepConfig config = sweepConfigFrom(readSweepConfigJson(config_path), config_path);
  // The folder's stage of an lr-selecting sweep, or the whole sweep.
  const engine::SweepConfig staged = engine::stageSweep(config, manifest.stage);
  const std::vector<engine::SweepCell> cells = engine::expandSweep(staged);
  const ArrayTaskQuery queue = queryArrayTasks(manifest);

  std::vector<ShardRow> rows;
  for (std::size_t shard = 0; shard < manifest.shards; ++shard) {
    ShardRow row;
    row.shard = shard;
    const auto state = queue.states.find(shard);
    row.slurm_state = state == queue.states.end() ? "-" : state->second;
    std::vector<std::string> keys;
    for (const engine::SweepCell& cell :
         engine::shardOf(cells, std::to_string(shard) + "/" + std::to_string(manifest.shards))) {
      keys.push_back(cell.key());
    }
    std::vector<cluster::CellRunStatus> runs;
    for (const sessions::SweepCellRun& run :
         shardSessionRuns(options.out, shard, manifest.shards)) {
      runs.push_back({run.key, run.status});
    }
    row.progress = cluster::shardProgress(keys, runs, row.slurm_state == "RUNNING");
    rows.push_back(row);
  }

  if (options.json) {
    nlohmann::json shards = nlohmann::json::array();
    for (const ShardRow& row : rows) {
      shards.push_back({{"shard", row.shard},
                        {"slurm", row.slurm_state},
                        {"cells", row.progress.cells},
                        {"done", row.progress.done},
                        {"running", row.progress.running},
                        {"failed", row.progress.failed},
                        {"pending", row.progress.pending}});
    }
    nlohmann::json jobs = nlohmann::json::array();
    for (const cluster::ArraySubmission& submission : manifest.submissions) {
      jobs.push_back(submission.job_id);
    }
    std::cout << nlohmann::json{{"jobs", jobs}, {"shards", shards}, {"notes", queue.notes}}.dump()
              << "\n";
    return;
  }
  std::cout << "sweep array in " << options.out << ": " << cells.size() << " cells, "
            << manifest.shards << " shards, ";
  if (manifest.submissions.empty()) {
    std::cout << "not submitted yet\n";
  } else {
    std::cout << "jobs";
    for (const cluster::ArraySubmission& submission : manifest.submissions) {
      std::cout << " " << submission.job_id;
    }
    std::cout << "\n";
  }
  for (const std::string& note : queue.notes) std::cout << "note: " << note << "\n";
  printStatusTable(rows);
}

void addSweepStatusCommand(CLI::App& app, int& exit_code) {
  CLI::App* sweep = app.get_subcommand("sweep");
  auto* command = sweep->add_subcommand(
      "status", "A Slurm sweep array's cells done, running, failed and pending, per shard");
  auto options = std::make_shared<SweepStatusOptions>();
  command->add_option("--out", options->out, "The array's output folder (sweep --slurm --out)")
      ->required();
  command->add_flag("--json", options->json, "Print the table as JSON");
  setCommandAction(command, exit_code, [options] { showSweepStatus(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(51, addSweepStatusCommand);

}  // namespace studio::cli

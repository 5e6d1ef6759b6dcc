// `studio-cli bench merge`: what `studio-cli merge` costs for a sweep of many runs. Writes shard
// sessions of synthetic sweep runs shaped by default like a demo-model run of the sweep (measured
// on a tx_log item of 25 operations: 61 progress events, 55 answer tokens, 56 probes of 6 layers ×
// 8 heads, one answer-attention row of 6 × 8 × 1500 floats), then times merging them
// (docs/cluster.md quotes the figure).

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/bench_probe_event.h"
#include "app/cli/cli_command.h"
#include "core/cluster/slurm_array_script.h"
#include "core/common/error.h"
#include "sessions/session_merge.h"
#include "sessions/session_store.h"
#include "sessions/session_writer.h"

namespace studio::cli {

namespace {

struct MergeBenchOptions {
  int runs = 10000;
  int shards = 8;
  int runs_per_document = 3;  // the methods of one item share its document
  int document_bytes = 2000;
  int progress = 61;  // progress events per run
  int tokens = 55;    // answer tokens per run
  int probes = 56;    // probe events per run, each with layers × heads query rows
  int layers = 6;     // the demo model's
  int heads = 8;
  int artifact_keys = 1500;  // keys of the answer-attention artifact (layers × heads × keys
                             // floats); 0: none
  bool json = false;
};

double mergeBenchSecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double folderMegabytes(const std::vector<std::string>& paths) {
  double bytes = 0;
  for (const std::string& path : paths) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (!error) bytes += static_cast<double>(size);
  }
  return bytes / (1024.0 * 1024.0);
}

engine::ArtifactEvent mergeBenchArtifact(const MergeBenchOptions& options) {
  engine::ArtifactEvent artifact;
  artifact.name = "answer_attention";
  artifact.kind = "attention_row";
  artifact.shape = {options.layers, options.heads, options.artifact_keys};
  artifact.meta_json = "{}";
  artifact.data.assign(
      static_cast<std::size_t>(options.layers) * options.heads * options.artifact_keys,
      1.0f / static_cast<float>(options.artifact_keys));
  return artifact;
}

// Shard s holds the runs r with r % shards == s, as a sweep array deals its cells.
std::vector<std::string> writeBenchShards(const std::filesystem::path& dir,
                                          const MergeBenchOptions& options) {
  std::vector<std::string> paths;
  for (int shard = 0; shard < options.shards; ++shard) {
    const std::string path =
        (dir / cluster::shardSessionName(static_cast<std::size_t>(shard),
                                         static_cast<std::size_t>(options.shards)))
            .string();
    paths.push_back(path);
    sessions::SessionStore store(path);
    sessions::SessionWriter writer(store);
    for (int run = shard; run < options.runs; run += options.shards) {
      const int item = run / options.runs_per_document;
      engine::RunSpec spec;
      spec.model_path = "resources/models/demo-qwen3";
      spec.document_source = "task:tx_log";
      spec.document_text = "item " + std::to_string(item) + " " +
                           std::string(static_cast<std::size_t>(options.document_bytes), 'x');
      spec.question = "Which transaction overdrew the account?";
      spec.method = "in_context";
      spec.seed = static_cast<std::uint64_t>(item);
      spec.task = "tx_log";
      spec.task_meta["sweep_key"] = "tx_log|ops=100|seed=" + std::to_string(item) + "|m" +
                                    std::to_string(run % options.runs_per_document);
      const std::int64_t id = store.beginRun(spec, R"({"hidden_size": 256})");
      for (int i = 0; i < options.progress; ++i) {
        writer.append(id, engine::ProgressEvent{"decode", (i + 1.0) / options.progress, i + 1,
                                                options.progress, 0.1});
      }
      for (int p = 0; p < options.probes; ++p) writer.append(id, syntheticProbeEvent(engine::ProbePhase::Prefill, p, 2048, 7.6,
                                                  options.layers, options.heads));
      for (int t = 0; t < options.tokens; ++t) {
        writer.append(
            id, engine::TokenEvent{t, 40 + t % 200, "t", -0.5, engine::TokenPhase::Answer, 0});
      }
      if (options.artifact_keys > 0) writer.append(id, mergeBenchArtifact(options));
      engine::RunResult result;
      result.answer = "tx " + std::to_string(item);
      result.score = run % 2;
      result.correct = run % 2 == 1;
      result.flops.prefill = 1.2e9;
      result.wall_seconds = 0.8;
      writer.finishRun(id, result);
    }
    writer.flush();
  }
  return paths;
}

void runMergeBench(const MergeBenchOptions& options) {
  if (options.runs <= 0 || options.shards <= 0 || options.runs_per_document <= 0) {
    throwArgument("--runs/--shards", "must be positive");
  }
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("studio-bench-merge-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  try {
    const auto write_start = std::chrono::steady_clock::now();
    const std::vector<std::string> shards = writeBenchShards(dir, options);
    const double write_seconds = mergeBenchSecondsSince(write_start);
    const std::string out = (dir / "merged.sqlite").string();
    const auto merge_start = std::chrono::steady_clock::now();
    const sessions::MergeReport report = sessions::mergeSessions(shards, out);
    const double merge_seconds = mergeBenchSecondsSince(merge_start);
    const double input_mb = folderMegabytes(shards);
    const double output_mb = folderMegabytes({out});
    if (options.json) {
      std::cout << nlohmann::json{{"runs", report.runs},
                                  {"shards", options.shards},
                                  {"documents", report.documents},
                                  {"event_rows", report.event_rows},
                                  {"input_mib", input_mb},
                                  {"output_mib", output_mb},
                                  {"write_seconds", write_seconds},
                                  {"merge_seconds", merge_seconds},
                                  {"merge_ms_per_run", 1e3 * merge_seconds / report.runs}}
                       .dump()
                << "\n";
    } else {
      std::printf(
          "merge bench: %d runs in %d shard sessions; per run %d progress, %d tokens, %d "
          "probes of %d layers x %d heads, an attention artifact of %d keys per head; a "
          "%d-byte document per %d runs\n",
          options.runs, options.shards, options.progress, options.tokens, options.probes,
          options.layers, options.heads, options.artifact_keys, options.document_bytes,
          options.runs_per_document);
      std::printf("shards written in %.2f s: %.1f MiB\n", write_seconds, input_mb);
      std::printf(
          "merged in %.3f s (%.3f ms a run): %lld runs, %lld documents, %lld event rows, "
          "%.1f MiB\n",
          merge_seconds, 1e3 * merge_seconds / static_cast<double>(report.runs),
          static_cast<long long>(report.runs), static_cast<long long>(report.documents),
          static_cast<long long>(report.event_rows), output_mb);
    }
  } catch (...) {
    fs::remove_all(dir);
    throw;
  }
  fs::remove_all(dir);
}

void addBenchMergeCommand(CLI::App& app, int& exit_code) {
  auto* command = benchCommand(app).add_subcommand(
      "merge", "Time `studio-cli merge` of shard sessions holding a sweep's runs (default 10,000)");
  auto options = std::make_shared<MergeBenchOptions>();
  command->add_option("--runs", options->runs, "Runs in all")->capture_default_str();
  command->add_option("--shards", options->shards, "Shard sessions they are dealt into")
      ->capture_default_str();
  command->add_option("--progress", options->progress, "Progress events per run")
      ->capture_default_str();
  command->add_option("--tokens", options->tokens, "Answer tokens per run")->capture_default_str();
  command->add_option("--probes", options->probes, "Probe events per run")->capture_default_str();
  command->add_option("--layers", options->layers, "Probed layers")->capture_default_str();
  command->add_option("--heads", options->heads, "Probed heads per layer")->capture_default_str();
  command
      ->add_option("--artifact-keys", options->artifact_keys,
                   "Keys per head of each run's attention artifact (0: no artifact)")
      ->capture_default_str();
  command->add_option("--document-bytes", options->document_bytes, "Bytes of each document")
      ->capture_default_str();
  command->add_flag("--json", options->json, "Print the figures as JSON");
  setCommandAction(command, exit_code, [options] { runMergeBench(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(170, addBenchMergeCommand);

}  // namespace studio::cli

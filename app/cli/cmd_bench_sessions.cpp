// `studio-cli bench sessions`: how fast the session store takes events through its writer thread,
// and how long reopening a large session and listing its runs takes.

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/cli/bench_probe_event.h"
#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"
#include "sessions/session_writer.h"

namespace studio::cli {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct BenchOptions {
  std::int64_t events = 1000000;
  int runs = 20;
  std::string out;
  std::size_t max_batch = 4096;
  int max_delay_ms = 250;
  int layers = 4;
  int heads = 4;
};

// The i-th event of a run: per 100 events, 45 step metrics, 45 tokens, 4 progress, 2 fast-weight
// losses, 1 routing decision, 1 reward, 1 log line and 1 probe of layers × heads (one query each).
engine::Event benchEvent(std::int64_t i, const BenchOptions& options) {
  const std::int64_t slot = i % 100;
  const double x = static_cast<double>(i);
  if (slot < 45) {
    return engine::StepMetricEvent{engine::StepPhase::Qttt, i,       3.0 / (1.0 + 1e-3 * x), 0.5, 1e-4, i % 4096,
                                   128,    1e-4 * x};
  }
  if (slot < 90) {
    return engine::TokenEvent{i, (i * 7919) % 151936, " token", -0.25, engine::TokenPhase::Answer, 0};
  }
  if (slot < 94) return engine::ProgressEvent{"qttt", x / 1e6, i, 1000000, 12.5};
  if (slot < 96) return engine::FastWeightLossEvent{int(i % 8), i, 2.5, 2.25, 2.0};
  if (slot == 96) {
    const std::int64_t window = i - i % 64;
    return engine::RoutingEvent{1, i, 2.5, 2.25, true, 512, 1, window, window + 64, 2.0, true, 0.05,
                                {window - 512}, false, i, i + 1};
  }
  if (slot == 97) return engine::RewardEvent{i / 100, i, 0.25, 1.0, 0.625, 0.125};
  if (slot == 98) return engine::LogEvent{"info", "step " + std::to_string(i) + " done"};
  return syntheticProbeEvent(engine::ProbePhase::QtttStep, i, 32768, 12.3, options.layers,
                             options.heads);
}

double fileMegabytes(const std::string& path) {
  std::error_code error;
  double bytes = 0;
  for (const char* suffix : {"", "-wal"}) {
    const auto size = std::filesystem::file_size(path + suffix, error);
    if (!error) bytes += static_cast<double>(size);
  }
  return bytes / (1024.0 * 1024.0);
}

void runBench(const BenchOptions& options) {
  if (options.events <= 0 || options.runs <= 0) {
    throwArgument("--events/--runs", "must be positive");
  }
  const bool keep = !options.out.empty();
  const std::string path =
      keep ? options.out
           : (std::filesystem::temp_directory_path() /
              ("studio-bench-sessions-" + std::to_string(::getpid()) + ".sqlite"))
                 .string();
  if (std::filesystem::exists(path)) {
    throwError(ErrorKind::Argument, path, "--out", "exists already; give a new file");
  }
  std::printf(
      "session bench: %lld events in %d runs; per 100 events: 45 step metrics, 45 tokens, "
      "4 progress, 2 fast-weight losses, 1 routing, 1 reward, 1 log, 1 probe of %d "
      "layers x %d heads\n",
      static_cast<long long>(options.events), options.runs, options.layers, options.heads);
  std::printf("file: %s%s\n", path.c_str(), keep ? "" : " (removed afterwards)");

  double append_seconds = 0;
  double total_seconds = 0;
  sessions::WriterStats stats;
  {
    sessions::SessionStore store(path);
    std::vector<std::int64_t> run_ids;
    engine::RunSpec spec;
    spec.model_path = "models/bench";
    spec.document_source = "bench";
    spec.document_text = std::string(32768, 'x');
    spec.method = "qttt";
    for (int r = 0; r < options.runs; ++r) {
      spec.seed = static_cast<std::uint64_t>(r);
      run_ids.push_back(store.beginRun(spec, R"({"hidden_size": 1024})"));
    }
    sessions::SessionWriter::Options writer_options;
    writer_options.max_batch = options.max_batch;
    writer_options.max_delay = std::chrono::milliseconds(options.max_delay_ms);
    sessions::SessionWriter writer(store, writer_options);
    const std::int64_t per_run = options.events / options.runs;
    const auto start = Clock::now();
    std::int64_t appended = 0;
    for (int r = 0; r < options.runs; ++r) {
      const std::int64_t count = r + 1 == options.runs ? options.events - appended : per_run;
      for (std::int64_t i = 0; i < count; ++i) writer.append(run_ids[r], benchEvent(i, options));
      appended += count;
      engine::RunResult result;
      result.answer = "42";
      result.score = 1.0;
      result.wall_seconds = 1.0;
      writer.finishRun(run_ids[r], result);
    }
    append_seconds = secondsSince(start);
    writer.flush();
    total_seconds = secondsSince(start);
    stats = writer.stats();
  }
  std::printf("append (queue only):   %.3f s, %.0f events/s\n", append_seconds,
              static_cast<double>(options.events) / append_seconds);
  std::printf(
      "written and committed: %.3f s, %.0f events/s (%llu batches, max %zu events or "
      "%d ms apart)\n",
      total_seconds, static_cast<double>(stats.events_written) / total_seconds,
      static_cast<unsigned long long>(stats.batches), options.max_batch, options.max_delay_ms);
  std::printf("file size: %.1f MiB\n", fileMegabytes(path));

  using Check = sessions::OpenOptions::Check;
  for (Check check : {Check::Quick, Check::Full, Check::HeaderOnly}) {
    sessions::OpenOptions open;
    open.check = check;
    const auto start = Clock::now();
    sessions::SessionStore store(path, open);
    const double open_seconds = secondsSince(start);
    const auto list_start = Clock::now();
    const auto runs = sessions::SessionReader(store).listRuns();
    const double list_seconds = secondsSince(list_start);
    const char* name = check == Check::Quick  ? "quick_check (default)"
                       : check == Check::Full ? "integrity_check"
                                              : "header only";
    std::printf("reopen with %-22s %.3f s; list %zu runs: %.2f ms\n", name, open_seconds,
                runs.size(), 1e3 * list_seconds);
  }
  if (!keep) {
    std::error_code error;
    std::filesystem::remove(path, error);
  }
}

void addBenchSessionsCommand(CLI::App& app, int& exit_code) {
  auto* command = benchCommand(app).add_subcommand(
      "sessions",
      "Write a million events through the session writer thread; print events/s and "
      "the time to reopen the session and list its runs");
  auto options = std::make_shared<BenchOptions>();
  command->add_option("--events", options->events, "Events to write (default 1000000)");
  command->add_option("--runs", options->runs, "Runs they are spread over (default 20)");
  command->add_option("--out", options->out,
                      "Keep the session in this new file (default: a temporary file)");
  command->add_option("--batch", options->max_batch, "Writer: max events per transaction");
  command->add_option("--delay-ms", options->max_delay_ms, "Writer: max ms between commits");
  setCommandAction(command, exit_code, [options] { runBench(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(140, addBenchSessionsCommand);

}  // namespace studio::cli

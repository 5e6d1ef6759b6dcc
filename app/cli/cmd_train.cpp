// studio-cli train: trains a model from a recipe (core/train), writing Hugging Face checkpoints
// that every other command loads, the curve into <out>/curve.json, and — with --session — the
// run, its progress and every step's loss into a session. Ctrl-C saves a checkpoint and stops;
// --resume continues from the latest checkpoint with the same curve.

#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "app/cli/cli_command.h"
#include "app/cli/progress_line.h"
#include "core/common/error.h"
#include "core/train/trainer.h"
#include "sessions/run_recorder.h"

namespace studio::cli {

namespace {

struct TrainOptions {
  std::string recipe;
  std::string out;
  std::string session;
  bool resume = false;
  std::int64_t stop_at = -1;
  std::string device;  // overrides the recipe's
  double max_seconds = -1;
  std::string progress = "auto";
};

std::atomic<bool> g_interrupted{false};

void onInterrupt(int) { g_interrupted = true; }

std::string defaultOut(const std::string& recipe) {
  return (std::filesystem::path("train") / std::filesystem::path(recipe).stem()).string();
}

void runTrain(const TrainOptions& options, int& exit_code) {
  train::TrainRecipe recipe = train::loadRecipe(options.recipe);
  if (!options.device.empty()) {
    if (options.device == "cpu" && recipe.dtype == "bf16") {
      throwArgument("--device", "cpu: the recipe's dtype bf16 needs CUDA (the CPU trains in f32)");
    }
    recipe.device = options.device;
    recipe.raw["device"] = options.device;
  }
  train::TrainerOptions trainer;
  trainer.max_seconds = options.max_seconds;
  trainer.out_dir = options.out.empty() ? defaultOut(options.recipe) : options.out;
  trainer.resume = options.resume;
  trainer.stop_at_step = options.stop_at;
  trainer.cancelled = [] { return g_interrupted.load(); };

  std::unique_ptr<sessions::SessionStore> store;
  std::unique_ptr<sessions::SessionWriter> writer;
  std::unique_ptr<sessions::RunRecorder> recorder;
  if (!options.session.empty()) {
    store = std::make_unique<sessions::SessionStore>(options.session);
    if (store->readOnly()) {
      throwError(ErrorKind::Session, options.session, "",
                 "the session is being written by another process; training needs to write it");
    }
    writer = std::make_unique<sessions::SessionWriter>(*store);
    recorder = std::make_unique<sessions::RunRecorder>(*store, *writer, recipe.model.toJson().dump());
    engine::RunSpec spec;
    spec.model_path = trainer.out_dir;
    spec.device = recipe.device;
    spec.dtype = recipe.dtype;
    spec.document_source = "recipe:" + options.recipe;
    spec.method = "train";
    spec.params = recipe.raw;
    spec.seed = recipe.seed;
    recorder->runStarted(spec);
  }
  // The trainer's log lines stay whole lines above the progress line (steps, ETA).
  ProgressLine line(progressStyleOf(options.progress));
  trainer.on_event = [&recorder, &line](const engine::Event& event) {
    if (const auto* log = std::get_if<engine::LogEvent>(&event)) line.note(log->message);
    if (const auto* progress = std::get_if<engine::ProgressEvent>(&event)) {
      line.update(progress->stage, progress->done, progress->total, progress->eta_seconds);
    }
    if (recorder) recorder->event(event);
  };

  g_interrupted = false;
  const auto previous = std::signal(SIGINT, onInterrupt);
  engine::RunResult result;
  std::optional<train::TrainOutcome> outcome;
  try {
    outcome = train::runTraining(recipe, trainer);
  } catch (const Error& error) {
    std::signal(SIGINT, previous);
    if (recorder) {
      result.status = engine::RunStatus::Failed;
      result.error = error.what();
      recorder->runFinished(result);
    }
    throw;
  }
  std::signal(SIGINT, previous);
  line.finish();

  const double seconds = outcome->curve.empty() ? 0.0 : outcome->curve.back().seconds;
  result.status = g_interrupted && !outcome->finished ? engine::RunStatus::Cancelled
                                                      : engine::RunStatus::Completed;
  result.wall_seconds = seconds;
  result.output = outcome->last_checkpoint;
  result.details = {{"steps_done", outcome->steps_done},
                    {"resumed_from", outcome->resumed_from},
                    {"finished", outcome->finished},
                    {"checkpoint", outcome->last_checkpoint},
                    {"final_loss", outcome->curve.empty() ? nlohmann::json()
                                                          : nlohmann::json(outcome->curve.back().loss)}};
  if (recorder) recorder->runFinished(result);
  std::cout << result.details.dump() << "\n";
  if (g_interrupted && !outcome->finished) exit_code = kCancelled;
}

void addTrainCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "train", "Train a model from a recipe: Hugging Face checkpoints, resumable, loss into a session");
  auto options = std::make_shared<TrainOptions>();
  command->add_option("--recipe", options->recipe, "Training recipe (JSON)")->required();
  command->add_option("--out", options->out,
                      "Output folder for checkpoints and curve.json (default train/<recipe name>)");
  command->add_flag("--resume", options->resume,
                    "Continue from the latest checkpoint in --out (same recipe, same curve)");
  command->add_option("--session", options->session,
                      "Session file: the run, its progress and every step's loss");
  command->add_option("--stop-at", options->stop_at,
                      "Stop with a checkpoint after this many steps in total (resume later)");
  command->add_option("--device", options->device,
                      "Train here instead of the recipe's device (cpu, cuda, cuda:N); a resumed "
                      "run may move to another device");
  command->add_option("--max-seconds", options->max_seconds,
                      "Stop with a checkpoint once this run has trained this long (resume later)")
      ->check(CLI::PositiveNumber);
  addProgressOption(command, options->progress);
  setCommandAction(command, exit_code, [options, &exit_code] { runTrain(*options, exit_code); });
}

}  // namespace

STUDIO_CLI_COMMAND(70, addTrainCommand);

}  // namespace studio::cli

// studio-cli answer-loss: the mean next-token loss of task items' reference answers after the
// engine's answer prompt (the trainer's "answer loss", on items training never saw), one JSON line
// per item and a summary line; with generated accuracy it says how far a model is from an answer.

#include <nlohmann/json.hpp>

#include <iostream>

#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "core/common/error.h"
#include "core/task/task.h"
#include "core/train/answer_loss.h"

namespace studio::cli {

namespace {

struct AnswerLossOptions {
  ModelOptions model;
  std::vector<std::string> items;
};

void runAnswerLoss(const AnswerLossOptions& options) {
  const LoadedForCli loaded = loadForCli(options.model);
  if (!loaded.tokenizer) {
    throwError(ErrorKind::Config, loaded.model->dir, "tokenizer.json",
               "is missing: items are text, so the model needs its tokenizer");
  }
  if (loaded.model->eos_ids.empty()) {
    throwError(ErrorKind::Config, loaded.model->dir + "/config.json", "eos_token_id",
               "is missing: the answer ends with the end-of-text token");
  }
  double sum = 0;
  std::int64_t tokens = 0;
  for (const std::string& path : options.items) {
    const task::TaskItem item = task::loadTaskItem(path);
    const train::TrainingExample example =
        train::answerExample(*loaded.tokenizer, item, loaded.model->eos_ids.front(), 0.0, path);
    const train::AnswerLoss loss = train::answerLoss(*loaded.model->lm, example);
    sum += loss.mean_nats * static_cast<double>(loss.tokens);
    tokens += loss.tokens;
    std::cout << nlohmann::json{{"item", path},
                                {"answer_loss", loss.mean_nats},
                                {"answer_tokens", loss.tokens},
                                {"prompt_tokens", loss.prompt_tokens}}
                     .dump()
              << "\n";
  }
  std::cout << nlohmann::json{{"items", options.items.size()},
                              {"answer_tokens", tokens},
                              {"mean_answer_loss", tokens > 0 ? sum / static_cast<double>(tokens) : 0.0}}
                   .dump()
            << "\n";
}

void addAnswerLossCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "answer-loss",
      "The loss (nats per token) of task items' reference answers after the engine's answer "
      "prompt: one JSON line per item, then the mean over all answer tokens");
  auto options = std::make_shared<AnswerLossOptions>();
  addModelOptions(command, options->model);
  command->add_option("--item", options->items,
                      "Task items (JSON as `task generate --json` prints it); repeat for several")
      ->required()
      ->check(CLI::ExistingFile);
  setCommandAction(command, exit_code, [options] { runAnswerLoss(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(36, addAnswerLossCommand);

}  // namespace studio::cli

// studio-cli run: one method on one document and question, with its FLOPs (App. 10), wall time
// and the answer query's probe summary; optionally recorded into a session.
// studio-cli methods: the registered methods with their parameter declarations (the UI builds
// its forms from this).

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "app/cli/progress_line.h"
#include "core/common/error.h"
#include "core/common/param_spec.h"
#include "core/document/repository_loader.h"
#include "core/document/text_loader.h"
#include "core/engine/method.h"
#include "core/engine/model_cache.h"
#include "core/engine/prepared_prompt.h"
#include "core/engine/run_executor.h"
#include "core/engine/sweep_plan.h"
#include "core/task/task.h"
#include "sessions/run_recorder.h"
#include "sessions/session_store.h"
#include "sessions/session_writer.h"

namespace studio::cli {

namespace {

struct RunOptions {
  std::string model;
  std::string device = "cpu";
  std::string dtype;
  std::string document;
  std::string text;
  std::string item;
  std::string question;
  std::string task_description;
  std::string method;
  std::vector<std::string> sets;
  double budget_flops = -1;
  std::vector<std::string> targets;
  std::string target_text;
  std::string session;
  std::string save_adapted;
  std::int64_t max_tokens = 0;  // 0: RunSpec's default, or what an --item's answers need
  std::uint64_t seed = 0;
  bool json = false;
  bool events = false;
  std::string progress = "auto";
  bool no_rope = false;
  std::string chat = "model";
};

// "a:b": code points [a, b) of the document.
Span parseTarget(const std::string& text) {
  const auto colon = text.find(':');
  try {
    if (colon == std::string::npos) throw std::invalid_argument("no colon");
    std::size_t used = 0;
    const auto start = std::stoll(text.substr(0, colon), &used);
    if (used != colon) throw std::invalid_argument("start");
    const std::string end_text = text.substr(colon + 1);
    const auto end = std::stoll(end_text, &used);
    if (used != end_text.size()) throw std::invalid_argument("end");
    if (start < 0 || end <= start) throw std::invalid_argument("range");
    return Span{start, end};
  } catch (const std::exception&) {
    throwArgument("--targets", "expected start:end code points with 0 ≤ start < end, got '" +
                                   text + "'");
  }
}

engine::RunSpec specOf(const RunOptions& options) {
  engine::RunSpec spec;
  const int sources = !options.document.empty() + !options.text.empty() + !options.item.empty();
  if (sources != 1) {
    throwArgument("--document",
                  "give exactly one of --document FILE|FOLDER, --text TEXT and --item FILE");
  }
  if (!options.item.empty()) {
    // A task item brings its question, task description, targets and reference answers; the
    // options given next to it replace the item's.
    spec = engine::specFromItem(task::loadTaskItem(options.item));
    spec.document_source = options.item;
  } else if (!options.document.empty()) {
    spec.document_source = options.document;
    // A folder is read as the window reads a code repository (repository_loader.h).
    spec.document_text = std::filesystem::is_directory(options.document)
                             ? document::loadRepository(options.document).text()
                             : document::loadTextFile(options.document).text();
  } else {
    spec.document_source = "text";
    spec.document_text = options.text;
  }
  spec.model_path = options.model;
  spec.device = options.device;
  spec.dtype = options.dtype;
  if (!options.question.empty()) spec.question = options.question;
  if (spec.question.empty()) throwArgument("--question", "a run needs a question (or an --item)");
  if (!options.task_description.empty()) spec.task_description = options.task_description;
  if (!options.targets.empty() && !options.target_text.empty()) {
    throwArgument("--targets", "give --targets or --target-text, not both");
  }
  if (!options.targets.empty() || !options.target_text.empty()) spec.target_chars.clear();
  for (const std::string& target : options.targets) spec.target_chars.push_back(parseTarget(target));
  if (!options.target_text.empty()) {
    spec.target_chars = engine::findTextSpans(spec.document_text, options.target_text);
  }
  spec.method = options.method;
  spec.params = parseKeyValues(options.sets);
  if (!options.save_adapted.empty()) {
    if (options.method != "qttt") {
      throwArgument("--save-adapted", "only the qttt method adapts weights to save");
    }
    spec.params["save_adapted"] = options.save_adapted;
  }
  if (options.budget_flops >= 0) spec.budget_flops = options.budget_flops;
  if (options.max_tokens > 0) spec.max_answer_tokens = options.max_tokens;
  spec.seed = options.seed;
  spec.rope = !options.no_rope;
  spec.chat = options.chat;
  // Bad method names and parameters are bad input (exit 2), found before the model loads.
  const engine::Method& method = engine::MethodRegistry::instance().get(spec.method);
  resolveParams(method.name(), method.params(), spec.params);
  return spec;
}

// Prints events as JSON lines on stderr (--events) and passes them on.
class EventEcho : public engine::EventSink {
 public:
  EventEcho(engine::EventSink* next, bool echo) : m_next(next), m_echo(echo) {}
  void runStarted(const engine::RunSpec& spec) override {
    resolved = spec;
    if (m_next) m_next->runStarted(spec);
  }
  void event(const engine::Event& event) override {
    if (m_echo) {
      nlohmann::json line = {{"kind", engine::eventKindName(event)}};
      if (const auto* step = std::get_if<engine::StepMetricEvent>(&event)) {
        line.update({{"phase", step->phase}, {"step", step->step}, {"loss", step->loss},
                     {"grad_norm", step->grad_norm}, {"span_start", step->span_start}});
      } else if (const auto* progress = std::get_if<engine::ProgressEvent>(&event)) {
        line.update({{"stage", progress->stage}, {"done", progress->done},
                     {"total", progress->total}});
      } else if (const auto* probe = std::get_if<engine::ProbeEvent>(&event)) {
        line.update({{"phase", probe->phase}, {"step", probe->step},
                     {"mean_mass", probe->result.mean_mass},
                     {"mean_margin", probe->result.mean_margin}});
      } else if (const auto* reward = std::get_if<engine::RewardEvent>(&event)) {
        line.update({{"step", reward->step}, {"position", reward->position},
                     {"reward", reward->reward}, {"advantage", reward->advantage}});
      } else if (const auto* artifact = std::get_if<engine::ArtifactEvent>(&event)) {
        line.update({{"name", artifact->name}, {"artifact_kind", artifact->kind}});
      } else if (const auto* log = std::get_if<engine::LogEvent>(&event)) {
        line.update({{"level", log->level}, {"message", log->message}});
      } else if (const auto* direction = std::get_if<engine::QueryDirectionEvent>(&event)) {
        line.update({{"step", direction->step}, {"mean_cosine", direction->mean_cosine},
                     {"layer_cosine", direction->layer_cosine}});
      }
      if (!std::holds_alternative<engine::TokenEvent>(event)) std::cerr << line.dump() << "\n";
    }
    if (m_next) m_next->event(event);
  }
  void runFinished(const engine::RunResult& result) override {
    if (m_next) m_next->runFinished(result);
  }
  engine::RunSpec resolved;

 private:
  engine::EventSink* m_next;
  bool m_echo;
};

int runOnce(const RunOptions& options) {
  const engine::RunSpec spec = specOf(options);
  engine::ModelCache models(1);
  std::unique_ptr<sessions::SessionStore> store;
  std::unique_ptr<sessions::SessionWriter> writer;
  std::unique_ptr<sessions::RunRecorder> recorder;
  if (!options.session.empty()) {
    store = std::make_unique<sessions::SessionStore>(options.session);
    if (store->readOnly()) {
      throwError(ErrorKind::Session, options.session, "",
                 "another process is writing this session; it was opened read-only");
    }
    writer = std::make_unique<sessions::SessionWriter>(*store);
    recorder = std::make_unique<sessions::RunRecorder>(*store, *writer);
  }
  EventEcho sink(recorder.get(), options.events);
  // --events already puts every event on stderr, as JSON lines that a progress line would break.
  ProgressLine line(options.events ? ProgressStyle::Off : progressStyleOf(options.progress));
  ProgressEvents progress(line, &sink);
  const engine::RunResult result =
      engine::executeRun(spec, models, progress, [] { return false; });

  nlohmann::json out = result.toJson();
  out["method"] = spec.method;
  out["params"] = sink.resolved.params;
  out["flops_total"] = result.flops.total();
  if (recorder && recorder->runId()) out["session_run_id"] = *recorder->runId();
  if (options.json) {
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << "status: " << engine::runStatusName(result.status) << "\n";
    if (!result.error.empty()) std::cout << "error: " << result.error << "\n";
    std::cout << "answer: " << result.answer << "\n";
    std::cout << "flops: prefill " << result.flops.prefill << " + extra " << result.flops.extra
              << " = " << result.flops.total() << "\n";
    std::cout << "wall: " << result.wall_seconds << " s\n";
    if (result.target_mass) std::cout << "target mass: " << *result.target_mass << "\n";
    if (result.target_margin) std::cout << "target margin: " << *result.target_margin << "\n";
  }
  switch (result.status) {
    case engine::RunStatus::Completed: return kOk;
    case engine::RunStatus::Cancelled: return kCancelled;
    default: return kFailed;
  }
}

void addRunCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "run", "Answer a question about a document with one inference-time method");
  auto options = std::make_shared<RunOptions>();
  command->add_option("--model", options->model, "Model folder")
      ->required()
      ->transform(modelFolderSpelling());
  command->add_option("--device", options->device, "Device to run on")
      ->check(deviceSpelling())
      ->capture_default_str();
  command->add_option("--dtype", options->dtype, "f32, bf16 or f16 (default: the device's)")
      ->transform(dtypeSpelling());
  command->add_option("--document", options->document,
                      "A UTF-8 text file, or a folder read as a code repository (as the window "
                      "opens one: sorted files with path headers, .gitignore honoured)");
  command->add_option("--text", options->text, "The document as a string");
  command->add_option("--item", options->item,
                      "A task item (JSON as `task generate --json` prints it): document, question, "
                      "task description, targets and reference answers in one file");
  command->add_option("--question", options->question, "The question (required without --item)");
  command->add_option("--task-description", options->task_description,
                      "The prompt's [TASK] section (default: a generic instruction)");
  command->add_option("--method", options->method,
                      "in_context, thinking, best_of_n, beam, qttt, full_ttt, refine, refine_sft "
                      "(see `methods`)")
      ->required();
  command->add_option("--set", options->sets, "A method parameter key=value (repeatable)");
  command->add_option("--budget-flops", options->budget_flops,
                      "Size the method to this many FLOPs after the prefill (App. 10)");
  command->add_option("--targets", options->targets,
                      "Target span a:b in code points of the document (repeatable)");
  command->add_option("--target-text", options->target_text,
                      "Every occurrence of this text in the document is a target");
  command->add_option("--session", options->session, "Record the run into this session file");
  command->add_option("--save-adapted", options->save_adapted,
                      "qttt: write the adapted checkpoint to this folder");
  command->add_option("--max-tokens", options->max_tokens,
                      "Answer tokens at most (default " + std::to_string(engine::kPaperAnswerTokens) +
                          ", the paper's, or room for an --item's answer)")
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--seed", options->seed,
                   "The run's seed: sampling, and the spans of qttt and full_ttt")
      ->capture_default_str();
  command->add_flag("--json", options->json, "Print the result as JSON");
  command->add_flag("--no-rope", options->no_rope,
                    "The No-RoPE ablation (App. 12): skip the rotary position embedding in every "
                    "layer for this run");
  addChatOption(command, options->chat);
  command->add_flag("--events", options->events,
                    "Print events as JSON lines on stderr (instead of the progress line)");
  addProgressOption(command, options->progress);
  setCommandAction(command, exit_code, [options, &exit_code] { exit_code = runOnce(*options); });
}

void addMethodsCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("methods", "List the methods and their parameters");
  auto json = std::make_shared<bool>(false);
  command->add_flag("--json", *json, "Print as JSON");
  setCommandAction(command, exit_code, [json] {
    nlohmann::json out = nlohmann::json::array();
    for (const engine::Method* method : engine::MethodRegistry::instance().all()) {
      out.push_back({{"name", method->name()},
                     {"summary", method->summary()},
                     {"params", paramSpecsToJson(method->params())}});
    }
    if (*json) {
      std::cout << out.dump(2) << "\n";
      return;
    }
    for (const auto& method : out) {
      std::cout << method["name"].get<std::string>() << ": "
                << method["summary"].get<std::string>() << "\n";
      for (const auto& param : method["params"]) {
        std::cout << "  " << param["name"].get<std::string>() << " ("
                  << param["type"].get<std::string>() << ", default " << param["default"].dump();
        // Bounds and suggestions as a person writes them: 0, 100000, 1e-05.
        const auto number = [](const nlohmann::json& value) {
          std::ostringstream text;
          text << std::setprecision(10) << value.get<double>();
          return text.str();
        };
        if (param.contains("min") || param.contains("max")) {
          std::cout << ", range [" << (param.contains("min") ? number(param["min"]) : "-inf") << ", "
                    << (param.contains("max") ? number(param["max"]) : "inf") << "]";
        }
        if (param.contains("suggestions")) {
          std::cout << ", suggested";
          for (const auto& value : param["suggestions"]) std::cout << " " << number(value);
        }
        std::cout << "): " << param["help"].get<std::string>() << "\n";
      }
    }
  });
}

}  // namespace

STUDIO_CLI_COMMAND(40, addRunCommand);
STUDIO_CLI_COMMAND(41, addMethodsCommand);

}  // namespace studio::cli

// studio-cli task: list the task generators and benchmark loaders, generate one item, load a
// benchmark file, score an answer.

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <memory>

#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "core/common/param_spec.h"
#include "core/common/utf8.h"
#include "core/task/answer_extraction.h"
#include "core/task/scorers.h"
#include "core/task/task.h"

namespace studio::cli {

namespace {

using nlohmann::json;

std::string dumpJson(const json& value, int indent = -1) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

const task::TaskGenerator& findGenerator(const std::string& name) {
  const auto& registry = task::TaskRegistry::instance();
  if (const auto* generator = registry.generator(name)) return *generator;
  std::string known;
  for (const auto* generator : registry.generators()) {
    known += (known.empty() ? "" : ", ") + generator->name();
  }
  throwArgument("--task", "unknown task '" + name + "' (known: " + known + ")");
}

const task::TaskLoader& findLoader(const std::string& name) {
  const auto& registry = task::TaskRegistry::instance();
  if (const auto* loader = registry.loader(name)) return *loader;
  std::string known;
  for (const auto* loader : registry.loaders())
    known += (known.empty() ? "" : ", ") + loader->name();
  throwArgument("--loader", "unknown loader '" + name + "' (known: " + known + ")");
}

// A readable excerpt of a target span.
std::string spanText(const task::TaskItem& item, const Span& span) {
  const utf8::OffsetMap offsets(item.context);
  const std::size_t begin = offsets.byteOf(static_cast<std::size_t>(span.start));
  const std::size_t end = offsets.byteOf(static_cast<std::size_t>(span.end));
  return item.context.substr(begin, end - begin);
}

void printItem(const task::TaskItem& item) {
  std::cout << "task: " << item.task << "\nid: " << item.id << "\nscorer: " << item.scorer << "\n";
  for (const std::string& answer : item.answers) std::cout << "answer: " << answer << "\n";
  for (const Span& span : item.targets) {
    std::cout << "target [" << span.start << ", " << span.end << "): " << spanText(item, span)
              << "\n";
  }
  std::cout << "meta: " << dumpJson(item.meta) << "\n";
  std::cout << "\n[TASK]\n"
            << item.task_description << "\n\n[QUESTION]\n"
            << item.question << "\n\n[CONTEXT] (" << utf8::length(item.context) << " characters)\n"
            << item.context << "\n";
}

void addList(CLI::App& task, int& exit_code) {
  auto* command = task.add_subcommand("list",
                                      "List the task generators (with their parameters), "
                                      "the benchmark loaders and the scorers");
  auto as_json = std::make_shared<bool>(false);
  command->add_flag("--json", *as_json, "Print one JSON object");
  setCommandAction(command, exit_code, [as_json] {
    const auto& registry = task::TaskRegistry::instance();
    json generators = json::array(), loaders = json::array(), scorers = json::array();
    for (const auto* generator : registry.generators()) {
      generators.push_back({{"name", generator->name()},
                            {"summary", generator->summary()},
                            {"params", paramSpecsToJson(generator->params())}});
    }
    for (const auto* loader : registry.loaders()) {
      loaders.push_back({{"name", loader->name()}, {"summary", loader->summary()}});
    }
    for (const auto& scorer : task::scorers()) {
      scorers.push_back({{"name", scorer.name}, {"summary", scorer.summary}});
    }
    if (*as_json) {
      std::cout << dumpJson(
                       {{"generators", generators}, {"loaders", loaders}, {"scorers", scorers}})
                << "\n";
      return;
    }
    std::cout << "Generators (studio-cli task generate --task NAME [--set key=value ...]):\n";
    for (const auto& generator : generators) {
      std::cout << "  " << generator["name"].get<std::string>() << ": "
                << generator["summary"].get<std::string>() << "\n";
      for (const auto& param : generator["params"]) {
        std::cout << "      " << param["name"].get<std::string>() << " ("
                  << param["type"].get<std::string>() << ", default " << dumpJson(param["default"]);
        if (param.contains("min")) std::cout << ", min " << param["min"];
        if (param.contains("max")) std::cout << ", max " << param["max"];
        if (param.contains("choices")) std::cout << ", one of " << dumpJson(param["choices"]);
        std::cout << "): " << param["help"].get<std::string>() << "\n";
      }
    }
    std::cout << "Loaders (studio-cli task load --loader NAME --file F):\n";
    for (const auto& loader : loaders) {
      std::cout << "  " << loader["name"].get<std::string>() << ": "
                << loader["summary"].get<std::string>() << "\n";
    }
    std::cout << "Scorers (studio-cli task score --scorer NAME ...):\n";
    for (const auto& scorer : scorers) {
      std::cout << "  " << scorer["name"].get<std::string>() << ": "
                << scorer["summary"].get<std::string>() << "\n";
    }
  });
}

void addGenerate(CLI::App& task, int& exit_code) {
  auto* command = task.add_subcommand("generate", "Generate one item of a sandbox task");
  auto name = std::make_shared<std::string>();
  auto sets = std::make_shared<std::vector<std::string>>();
  auto seed = std::make_shared<std::uint64_t>(0);
  auto as_json = std::make_shared<bool>(false);
  command->add_option("--task", *name, "tx_log, code_bug, niah (see `task list`)")->required();
  command->add_option("--set", *sets, "A parameter as key=value (repeatable)");
  command->add_option("--seed", *seed, "Seed: the same seed and parameters give the same item");
  command->add_flag("--json", *as_json,
                    "Print the item as one JSON object (context, question, answer, targets as "
                    "code point offsets into the context, meta)");
  setCommandAction(command, exit_code, [name, sets, seed, as_json] {
    const task::TaskGenerator& generator = findGenerator(*name);
    const json params = resolveParams(*name, generator.params(), parseKeyValues(*sets));
    const task::TaskItem item = generator.generate(params, *seed);
    if (*as_json) {
      json out = item.toJson();
      out["params"] = params;
      out["seed"] = *seed;
      std::cout << dumpJson(out) << "\n";
    } else {
      printItem(item);
    }
  });
}

void addLoad(CLI::App& task, int& exit_code) {
  auto* command = task.add_subcommand("load",
                                      "Load a benchmark file; problems with single lines "
                                      "go to stderr with their line numbers");
  auto name = std::make_shared<std::string>();
  auto file = std::make_shared<std::string>();
  auto limit = std::make_shared<std::size_t>(0);
  auto as_json = std::make_shared<bool>(false);
  command->add_option("--loader", *name, "longbench, longbench_v2, ruler, zeroscrolls")->required();
  command->add_option("--file", *file, "The benchmark file (JSON Lines or a JSON array)")
      ->required();
  command->add_option("--limit", *limit, "Stop after this many items (0: all)");
  command->add_flag("--json", *as_json, "Print the items as JSON lines");
  setCommandAction(command, exit_code, [name, file, limit, as_json, &exit_code] {
    const task::LoadResult result = findLoader(*name).load(*file, *limit);
    for (const task::LoadIssue& issue : result.issues) {
      std::cerr << *file << ":" << issue.line << ": " << issue.message << "\n";
    }
    for (const task::TaskItem& item : result.items) {
      if (*as_json) {
        std::cout << dumpJson(item.toJson()) << "\n";
      } else {
        std::cout << item.id << "\t" << utf8::length(item.context) << " chars\t" << item.scorer
                  << "\t" << (item.answers.empty() ? "" : item.answers.front()) << "\n";
      }
    }
    std::cerr << result.items.size() << " items, " << result.issues.size() << " lines skipped\n";
    if (result.items.empty() && !result.issues.empty()) exit_code = kBadInput;
  });
}

void addScore(CLI::App& task, int& exit_code) {
  auto* command = task.add_subcommand("score", "Score an answer against reference answers");
  auto scorer = std::make_shared<std::string>();
  auto prediction = std::make_shared<std::string>();
  auto answers = std::make_shared<std::vector<std::string>>();
  auto meta = std::make_shared<std::string>("{}");
  auto thinking = std::make_shared<bool>(false);
  command->add_option("--scorer", *scorer, "A scorer name (see `task list`)")->required();
  command->add_option("--prediction", *prediction, "The model's output")->required();
  command->add_option("--answer", *answers, "A reference answer (repeatable)")->required();
  command->add_option("--meta", *meta, "JSON the scorer needs, e.g. {\"dataset\": \"hotpotqa\"}");
  command->add_flag("--thinking", *thinking, "Score the text after the last 'Final:' (App. 11)");
  setCommandAction(command, exit_code, [scorer, prediction, answers, meta, thinking] {
    json meta_json;
    try {
      meta_json = json::parse(*meta);
    } catch (const json::exception& error) {
      throwArgument("--meta", std::string("not valid JSON: ") + error.what());
    }
    const std::string answer = task::extractAnswer(*prediction, *thinking);
    std::cout << std::setprecision(15) << task::score(*scorer, answer, *answers, meta_json) << "\n";
  });
}

void addTaskCommand(CLI::App& app, int& exit_code) {
  auto* task = app.add_subcommand("task",
                                  "Sandbox tasks (tx_log, code_bug, niah), benchmark "
                                  "loaders (LongBench, RULER, ZeroSCROLLS) and scorers");
  task->require_subcommand(1);
  addList(*task, exit_code);
  addGenerate(*task, exit_code);
  addLoad(*task, exit_code);
  addScore(*task, exit_code);
}

}  // namespace

STUDIO_CLI_COMMAND(60, addTaskCommand);

}  // namespace studio::cli

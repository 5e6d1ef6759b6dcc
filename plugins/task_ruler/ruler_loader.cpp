#include "plugins/task_ruler/ruler_loader.h"

#include <filesystem>

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/task/json_records.h"

namespace studio::plugins {

namespace {

using nlohmann::json;

bool startsWith(const std::string& text, const char* prefix) {
  return text.rfind(prefix, 0) == 0;
}

}  // namespace

std::string rulerTaskFromPath(const std::string& path) {
  const std::filesystem::path file(path);
  const std::string stem = file.stem().string();
  if (stem == "validation" || stem == "test") {
    const std::string parent = file.parent_path().filename().string();
    if (!parent.empty()) return parent;
  }
  return stem;
}

std::string RulerLoader::summary() const {
  return "RULER prepared jsonl (index, input, outputs, length, answer_prefix); the task comes "
         "from the path; string_match_part for qa, string_match_all otherwise";
}

task::LoadResult RulerLoader::read(const std::string& path, std::size_t limit) const {
  const std::string ruler_task = rulerTaskFromPath(path);
  const bool qa = startsWith(ruler_task, "qa");
  const bool needle = startsWith(ruler_task, "niah");
  return task::loadRecords(path, limit, [&](const task::JsonRecord& source) {
    const json& record = source.value;
    task::TaskItem item;
    item.task = "ruler";
    const std::string input = task::requireString(record, "input");
    item.answers = task::requireStringList(record, "outputs");
    if (item.answers.empty()) throwError(ErrorKind::Format, "", "outputs", "is empty");
    item.id = record.contains("index") ? ruler_task + "-" + task::requireScalarText(record, "index")
                                       : ruler_task + "-line" + std::to_string(source.line);
    // The question is the prompt's last line; RULER's templates all end with it.
    std::string_view body(input);
    while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.remove_suffix(1);
    const std::size_t cut = body.rfind('\n');
    if (cut != std::string_view::npos) {
      item.context = std::string(body.substr(0, cut));
      item.question = std::string(body.substr(cut + 1));
    } else {
      item.context = input;
    }
    item.task_description = "Answer the question about the text.";
    item.scorer = qa ? "ruler_string_match_part" : "ruler_string_match_all";
    std::string answer_prefix;
    if (record.contains("answer_prefix") && !record.at("answer_prefix").is_null()) {
      answer_prefix = task::requireString(record, "answer_prefix");
    }
    item.meta = {{"ruler_task", ruler_task},
                 {"length", record.contains("length") ? record.at("length") : json(nullptr)},
                 {"answer_prefix", answer_prefix}};
    if (needle) {
      const utf8::OffsetMap offsets(item.context);
      for (const std::string& value : item.answers) {
        if (value.empty()) continue;
        for (std::size_t at = item.context.find(value); at != std::string::npos;
             at = item.context.find(value, at + value.size())) {
          item.targets.push_back({static_cast<std::int64_t>(offsets.charOf(at)),
                                  static_cast<std::int64_t>(offsets.charOf(at + value.size()))});
        }
      }
    }
    return item;
  });
}

}  // namespace studio::plugins

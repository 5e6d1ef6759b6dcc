#include "plugins/task_zeroscrolls/zeroscrolls_loader.h"

#include <filesystem>
#include <map>

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/task/json_records.h"
#include "core/task/scorers.h"

namespace studio::plugins {

namespace {

using nlohmann::json;

constexpr const char* kDatasets[] = {"gov_report",   "summ_screen_fd", "qmsum",   "squality",
                                     "qasper",       "narrative_qa",   "quality", "musique",
                                     "space_digest", "book_sum_sort"};

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

std::optional<std::int64_t> optionalIndex(const json& record, const char* field) {
  const auto it = record.find(field);
  if (it == record.end() || it->is_null()) return std::nullopt;
  return task::requireInteger(record, field);
}

}  // namespace

std::string zeroScrollsDatasetFromPath(const std::string& path) {
  // The longest name wins, so "squality" is not taken for "quality".
  std::string best;
  for (const auto& part : std::filesystem::path(path)) {
    const std::string name = part.string();
    for (const char* dataset : kDatasets) {
      if (name.find(dataset) != std::string::npos && std::string(dataset).size() > best.size()) {
        best = dataset;
      }
    }
  }
  return best;
}

std::string ZeroScrollsLoader::summary() const {
  return "ZeroSCROLLS validation jsonl (id, pid, input, output, *_start_index/*_end_index); the "
         "dataset, and its metric, come from the path";
}

task::LoadResult ZeroScrollsLoader::read(const std::string& path, std::size_t limit) const {
  const std::string dataset = zeroScrollsDatasetFromPath(path);
  if (dataset.empty()) {
    throwError(ErrorKind::Task, path, "",
               "cannot tell which ZeroSCROLLS dataset this is; name the file or its folder after "
               "it (gov_report, summ_screen_fd, qmsum, squality, qasper, narrative_qa, quality, "
               "musique, space_digest, book_sum_sort)");
  }
  task::LoadResult result;
  std::map<std::string, std::size_t> item_of_id;
  task::readJsonRecords(path, result.issues, [&](task::JsonRecord&& source) {
    const json& record = source.value;
    try {
      const std::string id = task::requireScalarText(record, "id");
      const std::string output = task::requireString(record, "output");
      if (output.empty()) {
        throwError(ErrorKind::Format, "", "output", "is empty (a test split has no references)");
      }
      if (auto it = item_of_id.find(id); it != item_of_id.end()) {
        result.items[it->second].answers.push_back(output);
        return true;
      }
      if (limit > 0 && result.items.size() >= limit) return false;

      const std::string input = task::requireString(record, "input");
      const utf8::OffsetMap offsets(input);
      const auto chars = static_cast<std::int64_t>(offsets.chars());
      const auto index = [&](const char* field, std::int64_t fallback) {
        const auto value = optionalIndex(record, field).value_or(fallback);
        if (value < 0 || value > chars) {
          throwError(ErrorKind::Format, "", field,
                     std::to_string(value) + " is outside the input's " + std::to_string(chars) +
                         " characters");
        }
        return static_cast<std::size_t>(offsets.byteOf(static_cast<std::size_t>(value)));
      };
      const std::size_t doc_start = index("document_start_index", 0);
      const std::size_t doc_end = index("document_end_index", chars);
      const std::size_t query_start = index("query_start_index", chars);
      const std::size_t query_end = index("query_end_index", chars);
      if (doc_end < doc_start || query_end < query_start) {
        throwError(ErrorKind::Format, "", "document/query indices",
                   "an end comes before its start");
      }
      task::TaskItem item;
      item.task = "zeroscrolls";
      item.id = id;
      item.context = input.substr(doc_start, doc_end - doc_start);
      item.task_description = trimmed(std::string_view(input).substr(0, doc_start));
      item.question = trimmed(std::string_view(input).substr(query_start, query_end - query_start));
      if (item.question.empty()) item.question = item.task_description;
      item.answers = {output};
      item.scorer = "zeroscrolls";
      item.meta = {{"dataset", dataset},
                   {"metric", task::zeroScrollsMetricFor(dataset)},
                   {"pid", record.contains("pid") ? record.at("pid") : json(nullptr)},
                   {"answer_prefix", trimmed(std::string_view(input).substr(query_end))}};
      if (record.contains("truncation_seperator") &&
          record.at("truncation_seperator").is_string()) {
        item.meta["truncation_separator"] = record.at("truncation_seperator");
      }
      item_of_id.emplace(id, result.items.size());
      result.items.push_back(std::move(item));
    } catch (const Error& error) {
      if (error.kind() == ErrorKind::Internal || error.kind() == ErrorKind::Io) throw;
      result.issues.push_back({source.line, error.what()});
    }
    return true;
  });
  return result;
}

}  // namespace studio::plugins

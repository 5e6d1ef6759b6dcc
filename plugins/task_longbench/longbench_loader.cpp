#include "plugins/task_longbench/longbench_loader.h"

#include <map>

#include "core/common/error.h"
#include "core/task/json_records.h"
#include "core/task/scorers.h"

namespace studio::plugins {

namespace {

using nlohmann::json;

// The answer format each dataset's metric expects, in our words.
std::string instructionFor(const std::string& dataset) {
  static const std::map<std::string, std::string> kInstructions = {
      {"narrativeqa",
       "Answer the question about the story as briefly as possible, in a few words."},
      {"qasper",
       "Answer the question about the scientific article as briefly as possible, with a phrase "
       "or one sentence. Write \"unanswerable\" if the article does not answer it; answer a "
       "yes/no question with \"yes\", \"no\" or \"unanswerable\"."},
      {"multifieldqa_en", "Answer the question from the article. Give only the answer."},
      {"multifieldqa_zh", "请根据文章回答问题，只用中文给出简短的答案。"},
      {"hotpotqa", "Answer the question from the passages. Give only the answer, no other words."},
      {"2wikimqa", "Answer the question from the passages. Give only the answer, no other words."},
      {"musique", "Answer the question from the passages. Give only the answer, no other words."},
      {"dureader", "请根据所给的文章用中文回答问题。"},
      {"gov_report", "Write a one-page summary of the report."},
      {"qmsum", "Answer the query about the meeting transcript in one or more sentences."},
      {"multi_news", "Write a one-page summary of all the news articles."},
      {"vcsum", "请用中文写出会议记录的总结。"},
      {"trec", "Give the category of the question, in the same form as the examples."},
      {"triviaqa", "Answer the question in the same form as the examples; give only the answer."},
      {"samsum", "Summarize the dialogue in the same form as the examples."},
      {"lsht", "请判断新闻的类别，按示例的格式只输出类别名称。"},
      {"passage_count",
       "Count how many different paragraphs remain once duplicates are removed. Answer with the "
       "number only."},
      {"passage_retrieval_en",
       "Find the paragraph the summary was written from. Answer in the form \"Paragraph N\"."},
      {"passage_retrieval_zh", "找出摘要出自哪一个段落，按“段落N”的格式回答。"},
      {"lcc", "Complete the code: write the next line of code only."},
      {"repobench-p", "Complete the code: write the next line of code only."},
  };
  std::string base = dataset;
  if (!kInstructions.count(base) && base.size() > 2 &&
      base.compare(base.size() - 2, 2, "_e") == 0) {
    base.resize(base.size() - 2);
  }
  const auto it = kInstructions.find(base);
  return it == kInstructions.end() ? std::string() : it->second;
}

std::string optionalText(const json& record, const char* field) {
  const auto it = record.find(field);
  if (it == record.end() || it->is_null()) return {};
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

std::string idOf(const json& record, const task::JsonRecord& source) {
  const std::string id = record.is_object() ? optionalText(record, "_id") : std::string();
  return id.empty() ? "line " + std::to_string(source.line) : id;
}

task::TaskItem longBenchItem(const task::JsonRecord& source) {
  const json& record = source.value;
  const std::string dataset = task::requireString(record, "dataset");
  if (task::longbenchMetricFor(dataset).empty()) {
    throwError(ErrorKind::Format, "", "dataset", "'" + dataset + "' is not a LongBench dataset");
  }
  task::TaskItem item;
  item.task = "longbench";
  item.id = idOf(record, source);
  item.context = task::requireString(record, "context");
  item.task_description = instructionFor(dataset);
  item.question = task::requireString(record, "input");
  if (item.question.empty()) item.question = item.task_description;
  item.answers = task::requireStringList(record, "answers");
  if (item.answers.empty()) throwError(ErrorKind::Format, "", "answers", "is empty");
  item.scorer = "longbench";
  item.meta = {{"dataset", dataset},
               {"language", optionalText(record, "language")},
               {"length", record.contains("length") ? record.at("length") : json(nullptr)},
               {"all_classes", json(nullptr)}};
  if (record.contains("all_classes") && !record.at("all_classes").is_null()) {
    item.meta["all_classes"] = task::requireStringList(record, "all_classes");
  }
  return item;
}

task::TaskItem longBenchV2Item(const task::JsonRecord& source) {
  const json& record = source.value;
  const std::string answer = task::requireString(record, "answer");
  if (answer.size() != 1 || answer[0] < 'A' || answer[0] > 'D') {
    throwError(ErrorKind::Format, "", "answer", "must be one of A, B, C, D, got '" + answer + "'");
  }
  task::TaskItem item;
  item.task = "longbench_v2";
  item.id = task::requireScalarText(record, "_id");
  item.context = task::requireString(record, "context");
  json choices = json::object();
  std::string question =
      "What is the correct answer to this question: " + task::requireString(record, "question") +
      "\nChoices:\n";
  for (const char* letter : {"A", "B", "C", "D"}) {
    const std::string choice = task::requireString(record, std::string("choice_") + letter);
    choices[letter] = choice;
    question += "(" + std::string(letter) + ") " + choice + "\n";
  }
  question += "\nFormat your response as follows: \"The correct answer is (insert answer here)\".";
  item.question = std::move(question);
  item.task_description = "Read the text and answer the multiple-choice question about it.";
  item.answers = {answer};
  item.scorer = "longbench_v2";
  item.meta = {{"domain", optionalText(record, "domain")},
               {"sub_domain", optionalText(record, "sub_domain")},
               {"difficulty", optionalText(record, "difficulty")},
               {"length", optionalText(record, "length")},
               {"choices", choices}};
  return item;
}

}  // namespace

std::string LongBenchLoader::summary() const {
  return "LongBench v1 JSON Lines (input, context, answers, dataset, all_classes, ...), scored "
         "with each dataset's LongBench metric";
}

task::LoadResult LongBenchLoader::read(const std::string& path, std::size_t limit) const {
  return task::loadRecords(path, limit, longBenchItem);
}

std::string LongBenchV2Loader::summary() const {
  return "LongBench-v2 data.json (or JSON Lines): four-choice questions over long contexts, "
         "scored as its pred.py does";
}

task::LoadResult LongBenchV2Loader::read(const std::string& path, std::size_t limit) const {
  return task::loadRecords(path, limit, longBenchV2Item);
}

}  // namespace studio::plugins

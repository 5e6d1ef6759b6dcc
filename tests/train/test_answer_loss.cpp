// The answer loss of an item (core/train/answer_loss.h, `studio-cli answer-loss`): the trainer's
// example of a task item, and the mean next-token loss of its answer against a full-vocabulary
// log-softmax computed here position by position.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "core/engine/prompt_template.h"
#include "core/model/model_loader.h"
#include "core/task/task.h"
#include "core/tokenizer/tokenizer.h"
#include "core/train/answer_loss.h"
#include "support/run_cli.h"
#include "support/temp_dir.h"
#include "support/tiny_model_folder.h"

using namespace studio;

namespace {

task::TaskItem codeItem() {
  task::TaskItem item;
  item.context = "Entry 1: nothing. The code is K7Q2. Entry 2: nothing.";
  item.question = "What is the code?";
  item.answers = {"K7Q2"};
  return item;
}

}  // namespace

TEST_CASE("an item's example is the answer prompt, the answer, a newline and end-of-text",
          "[train]") {
  const test::TinyModelFolder folder("answer-example");
  const auto tokenizer = tokenizer::Tokenizer::fromFile(folder.path());
  const task::TaskItem item = codeItem();
  const train::TrainingExample example = train::answerExample(*tokenizer, item, 258, 0.25, "niah");
  engine::PromptParts parts;
  parts.context = item.context;
  parts.question = item.question;
  const auto prompt = tokenizer->encode(engine::answerPrompt(parts).text).ids;
  REQUIRE(example.answer_from == static_cast<std::int64_t>(prompt.size()));
  CHECK(std::equal(prompt.begin(), prompt.end(), example.ids.begin()));
  const auto answer = tokenizer->encode("K7Q2\n").ids;
  CHECK(example.ids.size() == prompt.size() + answer.size() + 1);
  CHECK(example.ids.back() == 258);
  CHECK(example.weights[0] == 0.0f);
  CHECK(example.weights[1] == 0.25f);
  CHECK(example.weights[prompt.size()] == 1.0f);
  CHECK(example.weights.back() == 1.0f);

  task::TaskItem unanswered = item;
  unanswered.answers.clear();
  CHECK_THROWS_WITH(train::answerExample(*tokenizer, unanswered, 258, 0, "my-item.json"),
                    Catch::Contains("my-item.json") && Catch::Contains("no reference answer"));
}

TEST_CASE("the answer loss is the mean next-token loss of the answer's tokens", "[train]") {
  for (const auto kind : {0, 1}) {
    const auto folder = kind == 0 ? std::make_unique<test::TinyModelFolder>("answer-loss-qwen3")
                                  : std::make_unique<test::TinyModelFolder>(
                                        test::TinyModelFolder::Ttt::Linear, "answer-loss-ttt");
    const auto loaded = model::loadModel(folder->path());
    const auto tokenizer = tokenizer::Tokenizer::fromFile(folder->path());
    const train::TrainingExample example = train::answerExample(*tokenizer, codeItem(), 258, 0, "x");
    const train::AnswerLoss loss = train::answerLoss(*loaded->lm, example);
    CHECK(loss.tokens == static_cast<std::int64_t>(example.ids.size()) - example.answer_from);

    // Independently: every position's logits, then the answer tokens' −log p one by one.
    torch::NoGradGuard no_grad;
    model::ForwardContext full;
    full.mode = model::AttentionMode::Full;
    const torch::Tensor ids = torch::tensor(example.ids, torch::kInt64).unsqueeze(0);
    const torch::Tensor logits = loaded->lm->logits(loaded->lm->forward(ids, full))[0].to(torch::kFloat64);
    double sum = 0;
    for (std::size_t t = static_cast<std::size_t>(example.answer_from); t < example.ids.size(); ++t) {
      const torch::Tensor row = logits[static_cast<std::int64_t>(t) - 1];
      sum += (torch::logsumexp(row, 0) - row[example.ids[t]]).item<double>();
    }
    CHECK(loss.mean_nats == Approx(sum / static_cast<double>(loss.tokens)).epsilon(1e-9));
  }
}

TEST_CASE("studio-cli answer-loss prints a line per item and the mean, and names a bad item",
          "[train][cli]") {
  const test::TinyModelFolder folder("answer-loss-cli");
  test::TempDir dir("answer-loss-cli");
  const std::string good = (dir / "good.json").string();
  const std::string bad = (dir / "bad.json").string();
  std::ofstream(good) << nlohmann::json{{"task", "niah"},
                                        {"context", "The code is K7Q2."},
                                        {"question", "What is the code?"},
                                        {"answers", {"K7Q2"}}}
                             .dump();
  std::ofstream(bad) << R"({"task": "niah", "context": "x", "question": "q?"})";
  const auto run = test::runCli("answer-loss --model " + folder.path() + " --item " + good +
                                " --item " + good);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  std::istringstream lines(run.out);
  std::string line;
  std::vector<nlohmann::json> rows;
  while (std::getline(lines, line)) rows.push_back(nlohmann::json::parse(line));
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]["item"] == good);
  CHECK(rows[0]["answer_tokens"] == 6);  // "K7Q2", the newline, end-of-text
  CHECK(rows[2]["items"] == 2);
  CHECK(rows[2]["mean_answer_loss"].get<double>() ==
        Approx(rows[0]["answer_loss"].get<double>()));

  const auto refused = test::runCli("answer-loss --model " + folder.path() + " --item " + bad);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("bad.json") != std::string::npos);
}

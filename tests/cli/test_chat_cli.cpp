// --chat on the command line: generate and run write their prompt in the checkpoint's chat template
// (tokenizer_config.json) unless told --chat none, and an unknown template is a clear refusal.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "support/run_cli.h"
#include "support/tiny_model_folder.h"

using nlohmann::json;
using studio::test::TinyModelFolder;
using studio::test::runCli;

namespace {

// The plain ChatML template, as a tokenizer_config.json beside the tiny model's byte-level
// tokenizer (which has <|im_start|> and <|im_end|> as added tokens).
void writeChatTemplate(const std::string& folder, const std::string& chat_template) {
  std::ofstream(std::filesystem::path(folder) / "tokenizer_config.json")
      << json{{"chat_template", chat_template}, {"eos_token", "<|im_end|>"}}.dump();
}

const char* kChatML =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
    "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' "
    "}}{% endif %}";

}  // namespace

TEST_CASE("cli generate writes --prompt in the chat template unless --chat none", "[cli][chat]") {
  TinyModelFolder model("chat-generate");
  writeChatTemplate(model.path(), kChatML);
  const std::string base = "generate --model '" + model.path() + "' --prompt 'hi' --max-tokens 2 --json";
  auto run = runCli(base);
  REQUIRE(run.exit_code == 0);
  const json chat = json::parse(run.out);
  // <|im_start|> (257) user \n h i <|im_end|> (258) \n <|im_start|> assistant \n
  REQUIRE(chat["prompt_ids"].size() == 21);
  CHECK(chat["prompt_ids"][0] == 257);
  CHECK(chat["prompt_ids"][8] == 258);

  run = runCli(base + " --chat none");
  REQUIRE(run.exit_code == 0);
  CHECK(json::parse(run.out)["prompt_ids"].size() == 2);  // "h", "i"

  run = runCli(base + " --chat jinja");
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.err, Catch::Contains("--chat"));
}

TEST_CASE("cli run and generate refuse an unknown chat template by name", "[cli][chat]") {
  TinyModelFolder model("chat-unknown");
  writeChatTemplate(model.path(), "{% for m in messages %}### {{ m.content }}{% endfor %}");
  auto run = runCli("generate --model '" + model.path() + "' --prompt 'hi' --max-tokens 2");
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.err, Catch::Contains("tokenizer_config.json: chat_template"));
  CHECK_THAT(run.err, Catch::Contains("--chat none"));

  const std::string m = "run --model '" + model.path() +
                        "' --text 'The code is QX7.' --question 'The code?' --method in_context "
                        "--max-tokens 2 --json";
  // A run that cannot build its prompt is recorded as failed, with the reason.
  run = runCli(m);
  CHECK(run.exit_code == 1);
  const json failed = json::parse(run.out);
  CHECK(failed["status"] == "failed");
  CHECK_THAT(failed["error"].get<std::string>(), Catch::Contains("--chat none"));
  run = runCli(m + " --chat none");
  REQUIRE(run.exit_code == 0);
  CHECK(json::parse(run.out)["status"] == "completed");
}

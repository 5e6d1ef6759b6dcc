// studio-cli tokenize: text to token ids (a JSON array) and back, with any byte-level BPE
// tokenizer.json. With --jsonl every input line is one JSON value and every output line one result,
// so a file of many texts is tokenized with one load of the tokenizer.

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "core/common/json_exact.h"
#include "core/tokenizer/tokenizer.h"

namespace studio::cli {

namespace {

struct TokenizeOptions {
  std::string tokenizer;
  std::string text;
  std::string file;
  std::string jsonl;
  bool decode = false;
  bool special = false;
};

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throwError(ErrorKind::Io, path, "", "cannot open");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A JSON array of integers or a comma (or whitespace) separated list.
std::vector<std::int64_t> parseIds(const std::string& text, const std::string& where) {
  std::vector<std::int64_t> ids;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    nlohmann::json array;
    try {
      array = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& error) {
      throwError(ErrorKind::Argument, where, "", std::string("not a JSON array: ") + error.what());
    }
    for (const auto& value : array) {
      if (!holdsExactly<std::int64_t>(value)) {
        throwError(ErrorKind::Argument, where, "",
                   "ids must be 64-bit integers, got " + value.dump());
      }
      ids.push_back(value.get<std::int64_t>());
    }
    return ids;
  }
  std::string token;
  std::istringstream in(text);
  while (in >> std::ws && std::getline(in, token, ',')) {
    std::istringstream item(token);
    std::int64_t id = 0;
    std::string rest;
    if (!(item >> id) || (item >> rest)) {
      throwError(ErrorKind::Argument, where, "", "\"" + token + "\" is not an integer id");
    }
    ids.push_back(id);
  }
  return ids;
}

std::string idsJson(const std::vector<std::int64_t>& ids) {
  return nlohmann::json(ids).dump();
}

void runTokenize(const TokenizeOptions& options) {
  const int sources = !options.text.empty() + !options.file.empty() + !options.jsonl.empty();
  if (sources != 1) {
    throwArgument("--text/--file/--jsonl", "give exactly one of them");
  }
  const auto tokenizer = tokenizer::Tokenizer::fromFile(options.tokenizer);
  // --special: encoding adds the post-processor's tokens (Llama 3's BOS); decoding keeps special
  // tokens, which are skipped otherwise.
  const auto encode = [&](const std::string& text) {
    return idsJson(tokenizer->encode(text, options.special).ids);
  };
  const auto decode = [&](const std::vector<std::int64_t>& ids) {
    return tokenizer->decode(ids, !options.special);
  };
  if (!options.jsonl.empty()) {
    std::ifstream in(options.jsonl, std::ios::binary);
    if (!in) throwError(ErrorKind::Io, options.jsonl, "", "cannot open");
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      const std::string where = options.jsonl + ":" + std::to_string(number);
      if (options.decode) {
        std::cout << nlohmann::json(decode(parseIds(line, where)))
                         .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
        continue;
      }
      nlohmann::json value;
      try {
        value = nlohmann::json::parse(line);
      } catch (const nlohmann::json::exception& error) {
        throwError(ErrorKind::Argument, where, "", std::string("not JSON: ") + error.what());
      }
      if (!value.is_string()) throwError(ErrorKind::Argument, where, "", "expected a JSON string");
      std::cout << encode(value.get<std::string>()) << "\n";
    }
    return;
  }
  const std::string input = options.file.empty() ? options.text : readAll(options.file);
  const std::string where = options.file.empty() ? "--text" : options.file;
  if (options.decode) {
    std::cout << decode(parseIds(input, where)) << "\n";
  } else {
    std::cout << encode(input) << "\n";
  }
}

void addTokenizeCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "tokenize",
      "Print the token ids of a text as a JSON array (or, with --decode, the text of ids)");
  auto options = std::make_shared<TokenizeOptions>();
  command
      ->add_option("--tokenizer", options->tokenizer,
                   "tokenizer.json (or .json.gz), or a model folder holding one")
      ->required();
  command->add_option("--text", options->text, "The text (with --decode: ids, [1,2] or 1,2)");
  command->add_option("--file", options->file, "A file holding the text (or the ids)");
  command->add_option("--jsonl", options->jsonl,
                      "JSON Lines: a string per line (with --decode: an id array per line); "
                      "prints one result per line");
  command->add_flag("--decode", options->decode, "Turn ids into text");
  command->add_flag("--special", options->special,
                    "Encoding: add the tokenizer's special tokens (e.g. BOS); decoding: keep "
                    "special tokens in the text");
  setCommandAction(command, exit_code, [options] { runTokenize(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(20, addTokenizeCommand);

}  // namespace studio::cli

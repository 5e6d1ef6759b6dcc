// studio-cli bench tokenizer: encoding and decoding throughput of a tokenizer.json on a file (or
// on a generated mixed document: prose, code, CJK, tx_log lines), in MB/s and tokens/s.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "core/tokenizer/tokenizer.h"

namespace studio::cli {

namespace {

struct BenchTokenizerOptions {
  std::string tokenizer;
  std::string file;
  int repeat = 5;
  double megabytes = 4.0;
  bool json = false;
};

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A document mixing what the studio tokenizes: English prose, code, Chinese, tx_log lines.
std::string generatedDocument(double megabytes) {
  const std::string parts[] = {
      "The quick brown fox jumps over the lazy dog; it's what they'd've done, isn't it? ",
      "def f(x):\n    return [i * i for i in range(x) if i % 3 == 0]  # squares\n",
      "人工智能正在改变世界，我们在北京看到了很多游客。",
      "Привет, мир! Καλημέρα κόσμε! مرحبا بالعالم 😀👍🏽\n",
  };
  std::string text;
  const auto target = static_cast<std::size_t>(megabytes * 1e6);
  for (int i = 0; text.size() < target; ++i) {
    text += "[TX" + std::to_string(1000 + i) + "]: Transfer $" + std::to_string(i * 37 % 900) +
            ": A=" + std::to_string(4000 + i) + " → " + std::to_string(3893 + i) + ", B=4200 → " +
            std::to_string(4307 + i) + "\n";
    text += parts[i % 4];
  }
  return text;
}

void runBench(const BenchTokenizerOptions& options) {
  if (options.repeat < 1) throwArgument("--repeat", "must be at least 1");
  const auto load_start = Clock::now();
  const auto tokenizer = tokenizer::Tokenizer::fromFile(options.tokenizer);
  const double load_seconds = secondsSince(load_start);

  std::string text;
  if (options.file.empty()) {
    if (options.megabytes <= 0) throwArgument("--megabytes", "must be positive");
    text = generatedDocument(options.megabytes);
  } else {
    std::ifstream in(options.file, std::ios::binary);
    if (!in) throwError(ErrorKind::Io, options.file, "", "cannot open");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
  }
  if (text.empty()) throwArgument("--file", "is empty");

  // The first pass fills the tokenizer's cache of pre-token encodings; the best of the later
  // passes is the steady state.
  auto start = Clock::now();
  auto encoding = tokenizer->encode(text);
  const double cold_seconds = secondsSince(start);
  double encode_seconds = cold_seconds;
  double decode_seconds = 1e30;
  for (int i = 0; i < options.repeat; ++i) {
    start = Clock::now();
    encoding = tokenizer->encode(text);
    encode_seconds = std::min(encode_seconds, secondsSince(start));
    start = Clock::now();
    const std::string decoded = tokenizer->decode(encoding.ids);
    decode_seconds = std::min(decode_seconds, secondsSince(start));
    if (decoded.empty()) throwError(ErrorKind::Internal, "bench", "", "decoding gave nothing");
  }
  const double megabytes = static_cast<double>(text.size()) / 1e6;
  const double tokens = static_cast<double>(encoding.size());
  const nlohmann::json result = {{"tokenizer", options.tokenizer},
                                 {"bytes", text.size()},
                                 {"tokens", encoding.size()},
                                 {"load_s", load_seconds},
                                 {"encode_cold_mb_per_s", megabytes / cold_seconds},
                                 {"encode_mb_per_s", megabytes / encode_seconds},
                                 {"encode_tokens_per_s", tokens / encode_seconds},
                                 {"decode_tokens_per_s", tokens / decode_seconds},
                                 {"seconds_per_32k_tokens", encode_seconds * 32768.0 / tokens}};
  if (options.json) {
    std::cout << result.dump() << "\n";
    return;
  }
  std::cout << "tokenizer          " << options.tokenizer << " (loaded in " << load_seconds
            << " s)\n"
            << "input              " << text.size() << " bytes, " << encoding.size() << " tokens\n"
            << "encode (first)     " << megabytes / cold_seconds << " MB/s\n"
            << "encode             " << megabytes / encode_seconds << " MB/s, "
            << tokens / encode_seconds << " tokens/s\n"
            << "decode             " << tokens / decode_seconds << " tokens/s\n"
            << "32k tokens encode  " << encode_seconds * 32768.0 / tokens << " s\n";
}

void addBenchTokenizerCommand(CLI::App& app, int& exit_code) {
  auto* command = benchCommand(app).add_subcommand(
      "tokenizer", "Tokenizer throughput: encode MB/s and tokens/s, decode tokens/s");
  auto options = std::make_shared<BenchTokenizerOptions>();
  command
      ->add_option("--tokenizer", options->tokenizer,
                   "tokenizer.json (or .json.gz), or a model folder holding one")
      ->required();
  command->add_option("--file", options->file,
                      "Text to tokenize (default: a generated mixed document)");
  command->add_option("--megabytes", options->megabytes,
                      "Size of the generated document (default 4)");
  command->add_option("--repeat", options->repeat, "Timed passes after the first (default 5)");
  command->add_flag("--json", options->json, "Print a JSON object");
  setCommandAction(command, exit_code, [options] { runBench(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(160, addBenchTokenizerCommand);

}  // namespace studio::cli

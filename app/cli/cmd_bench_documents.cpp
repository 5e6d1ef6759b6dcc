// `studio-cli bench documents`: how fast documents load: a generated text file of valid UTF-8,
// the same with invalid bytes sprinkled in (the sanitizing path), and a generated source tree
// opened as a code repository. The studio's target is a 50 MB file in well under a few seconds.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>

#include <unistd.h>

#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "core/common/remove_tree.h"
#include "core/document/repository_loader.h"
#include "core/document/text_loader.h"

namespace studio::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct BenchOptions {
  double megabytes = 50;
  int files = 2000;
  std::string repository;  // an existing folder to open instead of the generated tree
};

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Transaction-log-like lines; every `invalid_every`-th line gets a Latin-1 byte (0: none).
void writeTextFile(const fs::path& path, std::uint64_t bytes, int invalid_every) {
  std::ofstream out(path, std::ios::binary);
  std::mt19937 rng(7);
  std::uint64_t written = 0;
  for (std::uint64_t i = 0; written < bytes; ++i) {
    std::string line = "[TX" + std::to_string(i) + "]: Transfer $" + std::to_string(rng() % 500) +
                       ": A=" + std::to_string(rng() % 5000) + " -> " +
                       std::to_string(rng() % 5000) + ", B=" + std::to_string(rng() % 5000) +
                       " -> " + std::to_string(rng() % 5000);
    if (invalid_every > 0 && i % static_cast<std::uint64_t>(invalid_every) == 0) {
      line += " caf\xE9";
    }
    line += '\n';
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    written += line.size();
  }
}

void writeTree(const fs::path& root, int files) {
  std::mt19937 rng(11);
  for (int f = 0; f < files; ++f) {
    const fs::path file =
        root / ("pkg" + std::to_string(f % 40)) / ("module_" + std::to_string(f) + ".py");
    fs::create_directories(file.parent_path());
    std::ofstream out(file);
    for (int k = 0; k < 60; ++k) {
      out << "def function_" << k << "(x, y):\n    return x * " << rng() % 100 << " + y\n";
    }
  }
  fs::create_directories(root / "node_modules" / "dep");
  std::ofstream(root / "node_modules" / "dep" / "index.js") << "module.exports = 1;\n";
  std::ofstream(root / "weights.bin", std::ios::binary) << std::string("\0\1\2\3", 4);
}

void report(const char* what, double seconds, std::uint64_t bytes, std::size_t lines) {
  std::printf("%-34s %8.3f s  %8.1f MB/s  %10zu lines  %8.1f MB\n", what, seconds,
              static_cast<double>(bytes) / 1e6 / std::max(seconds, 1e-9), lines,
              static_cast<double>(bytes) / 1e6);
}

void runBench(const BenchOptions& options) {
  const fs::path temp =
      fs::temp_directory_path() / ("studio-bench-documents-" + std::to_string(::getpid()));
  fs::create_directories(temp);
  struct Cleanup {
    fs::path path;
    ~Cleanup() {
      try {
        removeTree(path.string());
      } catch (const Error&) {  // a temporary folder left behind is not worth failing the bench
      }
    }
  } cleanup{temp};

  const auto bytes = static_cast<std::uint64_t>(options.megabytes * 1e6);
  writeTextFile(temp / "valid.txt", bytes, 0);
  writeTextFile(temp / "latin1.txt", bytes, 50);

  auto start = Clock::now();
  const document::Document valid = document::loadTextFile((temp / "valid.txt").string());
  report("text file, valid UTF-8", secondsSince(start), valid.sizeBytes(), valid.lineCount());

  start = Clock::now();
  const document::Document sanitized = document::loadTextFile((temp / "latin1.txt").string());
  report("text file, invalid bytes replaced", secondsSince(start), sanitized.sizeBytes(),
         sanitized.lineCount());
  std::printf("%-34s %zu\n", "  replacements", sanitized.stats().invalid_utf8_replaced);

  fs::path tree = options.repository;
  if (tree.empty()) {
    tree = temp / "tree";
    writeTree(tree, options.files);
  }
  start = Clock::now();
  const document::Document repo = document::loadRepository(tree.string());
  report("folder as code repository", secondsSince(start), repo.sizeBytes(), repo.lineCount());
  std::printf("%-34s %zu included, %zu binary, %zu ignored, %zu ignored folders\n", "  files",
              repo.stats().files_included, repo.stats().binary_files_skipped,
              repo.stats().ignored_files_skipped, repo.stats().ignored_folders_skipped);
}

void addBenchDocumentsCommand(CLI::App& app, int& exit_code) {
  auto* command = benchCommand(app).add_subcommand(
      "documents",
      "Time loading a generated text file (valid and with invalid UTF-8) and a "
      "generated source tree opened as a code repository");
  auto options = std::make_shared<BenchOptions>();
  command->add_option("--megabytes", options->megabytes, "Size of the text files (default 50)")
      ->check(CLI::PositiveNumber);
  command->add_option("--files", options->files, "Files in the generated tree (default 2000)")
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--repository", options->repository,
                   "Open this folder instead of the generated tree")
      ->check(CLI::ExistingDirectory);
  setCommandAction(command, exit_code, [options] { runBench(*options); });
}

}  // namespace

STUDIO_CLI_COMMAND(150, addBenchDocumentsCommand);

}  // namespace studio::cli

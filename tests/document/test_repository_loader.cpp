#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/common/error.h"
#include "core/document/repository_format.h"
#include "core/document/repository_loader.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"

using namespace studio;
using namespace studio::document;

namespace {

const std::string kFixtures = std::string(studio::test_paths::kFixturesDir) + "/documents/";

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

TEST_CASE("a folder becomes one document with path headers and L<n> prefixes", "[document]") {
  const Document doc = loadRepository(kFixtures + "tiny_repo");
  CHECK(doc.kind() == DocumentKind::Repository);
  CHECK(doc.text() == readAll(kFixtures + "tiny_repo.expected.txt"));

  // .gitignore, README.md, keep.log (re-included by '!'), src/__init__.py (empty),
  // src/attention.py, src/data/loader.py.
  CHECK(doc.stats().files_included == 6);
  CHECK(doc.stats().binary_files_skipped == 1);   // assets/logo.bin
  CHECK(doc.stats().ignored_files_skipped == 2);  // train.log, secret.txt
  CHECK(doc.stats().ignored_folders_skipped == 0);
  CHECK(doc.stats().invalid_utf8_replaced == 0);

  REQUIRE(doc.files().size() == 6);
  CHECK(doc.files()[3].path == "src/__init__.py");
  CHECK(doc.files()[3].line_count == 0);
  CHECK(doc.files()[4].path == "src/attention.py");
  CHECK(doc.files()[4].line_count == 14);
  const std::int64_t line = doc.findFileLine("src/attention.py", 7);
  REQUIRE(line >= 0);
  CHECK(doc.line(static_cast<std::size_t>(line)) ==
        "L7:     return [[sum(a * b for a, b in zip(qi, kj)) / math.sqrt(d) for kj in k] for qi "
        "in q]");
}

TEST_CASE("files come in byte-wise sorted order of their paths", "[document]") {
  test::TempDir temp("document");
  temp.write("b.py", "b\n");
  temp.write("a/z.py", "z\n");
  temp.write("a.txt", "a\n");
  temp.write("A.md", "A\n");
  temp.write("a/b/c.py", "c\n");
  const Document doc = loadRepository(temp.path().string());
  std::vector<std::string> order;
  for (const RepositoryFile& file : doc.files()) order.push_back(file.path);
  CHECK(order == std::vector<std::string>{"A.md", "a.txt", "a/b/c.py", "a/z.py", "b.py"});
  CHECK(doc.line(0) == "=== A.md ===");
  CHECK(doc.line(1) == "L1: A");
}

TEST_CASE("build, dependency, cache and hidden folders are skipped and counted", "[document]") {
  test::TempDir temp("document");
  temp.write("main.py", "print('hi')\n");
  temp.write(".git/HEAD", "ref: refs/heads/main\n");
  temp.write("build/out.txt", "built\n");
  temp.write("build-release/out.txt", "built\n");
  temp.write("node_modules/pkg/index.js", "module.exports = 1;\n");
  temp.write("src/__pycache__/m.cpython-311.pyc", "cached\n");
  temp.write(".venv/lib/site.py", "x = 1\n");
  temp.write(".env", "KEY=value\n");  // a hidden file (not folder) is kept
  const Document doc = loadRepository(temp.path().string());
  CHECK(doc.stats().files_included == 2);
  CHECK(doc.stats().ignored_folders_skipped == 6);
  CHECK(doc.files()[0].path == ".env");
  CHECK(doc.files()[1].path == "main.py");
  CHECK(doc.text().find("built") == std::string::npos);
}

TEST_CASE("the root .gitignore decides which files are read", "[document]") {
  test::TempDir temp("document");
  temp.write(".gitignore", "*.ckpt\nlogs/\n/data/*.csv\n!data/keep.csv\n");
  temp.write("train.py", "train()\n");
  temp.write("model.ckpt", "weights\n");
  temp.write("sub/model.ckpt", "weights\n");
  temp.write("logs/run1.txt", "loss 1.0\n");
  temp.write("data/a.csv", "1,2\n");
  temp.write("data/keep.csv", "3,4\n");
  temp.write("data/nested/b.csv", "5,6\n");  // "/data/*.csv" does not reach into sub-folders
  const Document doc = loadRepository(temp.path().string());
  std::vector<std::string> paths;
  for (const RepositoryFile& file : doc.files()) paths.push_back(file.path);
  CHECK(paths ==
        std::vector<std::string>{".gitignore", "data/keep.csv", "data/nested/b.csv", "train.py"});
  CHECK(doc.stats().ignored_files_skipped == 3);    // two .ckpt, data/a.csv
  CHECK(doc.stats().ignored_folders_skipped == 1);  // logs/

  RepositoryOptions no_ignore;
  no_ignore.use_gitignore = false;
  CHECK(loadRepository(temp.path().string(), no_ignore).stats().files_included == 8);
}

TEST_CASE("binary files are skipped, text with a few bad bytes is kept", "[document]") {
  test::TempDir temp("document");
  temp.write("nul.dat", std::string("abc\0def", 7));
  std::string noise;
  for (int i = 0; i < 2000; ++i) noise.push_back(static_cast<char>(0x80 + (i * 37) % 0x7F));
  temp.write("noise.dat", noise);  // no NUL, but mostly invalid UTF-8
  temp.write("controls.dat", std::string(200, '\x01'));
  std::string latin1 = "caf\xe9 ";
  for (int i = 0; i < 20; ++i) latin1 += "plain ascii words around one accented byte. ";
  temp.write("notes_latin1.txt", latin1 + "\n");
  temp.write("ansi.log", "\x1b[32mOK\x1b[0m done\n");
  const Document doc = loadRepository(temp.path().string());
  CHECK(doc.stats().binary_files_skipped == 3);
  CHECK(doc.stats().files_included == 2);
  CHECK(doc.stats().invalid_utf8_replaced == 1);
  CHECK(doc.text().find("caf\xEF\xBF\xBD ") != std::string::npos);
}

TEST_CASE("symbolic links are never followed", "[document]") {
  test::TempDir temp("document");
  temp.write("real/a.py", "a = 1\n");
  std::filesystem::create_directory_symlink(temp.path() / "real", temp.path() / "loop");
  std::filesystem::create_symlink(temp.path() / "real/a.py", temp.path() / "alias.py");
  const Document doc = loadRepository(temp.path().string());
  CHECK(doc.stats().files_included == 1);
  CHECK(doc.stats().ignored_files_skipped == 2);
}

TEST_CASE("repository limits give a clear error or skip large files", "[document]") {
  test::TempDir temp("document");
  temp.write("a.py", std::string(600, 'a') + "\n");
  temp.write("b.py", std::string(600, 'b') + "\n");
  temp.write("huge.py", std::string(5000, 'h') + "\n");

  RepositoryOptions options;
  options.max_file_bytes = 1000;
  const Document doc = loadRepository(temp.path().string(), options);
  CHECK(doc.stats().large_files_skipped == 1);
  CHECK(doc.stats().files_included == 2);

  options.max_total_bytes = 1000;
  try {
    loadRepository(temp.path().string(), options);
    FAIL("expected the total-size limit to be enforced");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Unsupported);
    CHECK(error.where() == temp.path().string());
    CHECK_THAT(error.what(), Catch::Contains("more than the limit of 1000 bytes"));
  }

  RepositoryOptions few;
  few.max_files = 2;
  CHECK_THROWS_WITH(loadRepository(temp.path().string(), few),
                    Catch::Contains("more than 2 files"));
}

TEST_CASE("an empty folder is an empty repository document", "[document]") {
  test::TempDir temp("document");
  const Document doc = loadRepository(temp.path().string());
  CHECK(doc.lineCount() == 0);
  CHECK(doc.stats().files_included == 0);
}

TEST_CASE("opening a missing folder or a file as a repository names the path", "[document]") {
  test::TempDir temp("document");
  const std::string missing = (temp.path() / "nope").string();
  CHECK_THROWS_WITH(loadRepository(missing), missing + ": no such folder");
  const std::string file = temp.write("file.txt", "x\n");
  CHECK_THROWS_WITH(loadRepository(file), Catch::StartsWith(file + ": is a file, not a folder"));
}

TEST_CASE("the repository format helpers round-trip", "[document]") {
  std::string out;
  CHECK(appendRepositoryFile(out, "src/x.py", "a\r\nb\n\nc") == 4);
  CHECK(out == "=== src/x.py ===\nL1: a\nL2: b\nL3: \nL4: c\n");
  CHECK(parseRepositoryHeader("=== src/x.py ===") == std::optional<std::string>("src/x.py"));
  CHECK_FALSE(parseRepositoryHeader("L1: === a ==="));
  CHECK_FALSE(parseRepositoryHeader("=== ==="));
  std::string_view text;
  CHECK(parseNumberedLine("L12: return x", &text) == std::optional<std::size_t>(12));
  CHECK(text == "return x");
  CHECK(parseNumberedLine("L3: ", &text) == std::optional<std::size_t>(3));
  CHECK(text.empty());
  CHECK_FALSE(parseNumberedLine("L: x"));
  CHECK_FALSE(parseNumberedLine("L12 x"));
  CHECK(repositoryHeader("bad\nname") == "=== bad?name ===");
}

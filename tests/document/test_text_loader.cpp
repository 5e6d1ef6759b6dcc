#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <random>

#include "core/common/error.h"
#include "core/document/text_loader.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"

using namespace studio;
using namespace studio::document;

namespace {

const std::string kFixtures = std::string(studio::test_paths::kFixturesDir) + "/documents/";
const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

TEST_CASE("a UTF-8 text file loads as it is", "[document]") {
  const Document doc = loadTextFile(kFixtures + "utf8.txt");
  CHECK(doc.kind() == DocumentKind::Text);
  CHECK(doc.sourcePath() == kFixtures + "utf8.txt");
  REQUIRE(doc.lineCount() == 3);
  CHECK(doc.line(0) ==
        "Gr\xC3\xBC\xC3\x9F"
        "e, \xE4\xB8\x96\xE7\x95\x8C!");
  CHECK(doc.line(2) == "\tindented third line");
  CHECK(doc.stats().files_included == 1);
  CHECK(doc.stats().invalid_utf8_replaced == 0);
}

TEST_CASE("invalid UTF-8 becomes U+FFFD and is counted", "[document]") {
  const Document doc = loadTextFile(kFixtures + "latin1.txt");
  CHECK(doc.stats().invalid_utf8_replaced == 4);  // é è û é in Latin-1
  REQUIRE(doc.lineCount() == 2);
  CHECK(doc.line(0) == "caf" + kReplacement + " cr" + kReplacement + "me br" + kReplacement + "l" +
                           kReplacement + "e");
  CHECK(doc.line(1) == "plain ascii");
}

TEST_CASE("CRLF line endings are not part of the lines", "[document]") {
  const Document doc = loadTextFile(kFixtures + "crlf.txt");
  REQUIRE(doc.lineCount() == 3);
  CHECK(doc.line(0) == "one");
  CHECK(doc.line(1) == "two");
  CHECK(doc.line(2) == "three");
}

TEST_CASE("an empty file is an empty document", "[document]") {
  test::TempDir temp("document");
  const std::string path = temp.write("empty.txt", "");
  const Document doc = loadTextFile(path);
  CHECK(doc.sizeBytes() == 0);
  CHECK(doc.lineCount() == 0);
  CHECK(doc.stats().invalid_utf8_replaced == 0);
}

TEST_CASE("a file of random bytes loads as valid UTF-8 with replacements", "[document]") {
  test::TempDir temp("document");
  std::mt19937 rng(1234);
  std::string bytes(256 * 1024, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xFF);
  const std::string path = temp.write("random.bin", bytes);
  const Document doc = loadTextFile(path);
  CHECK(doc.stats().invalid_utf8_replaced > 10000);
  CHECK(doc.lineCount() > 100);  // ~1/256 of the bytes are '\n'
  // Every line can be read back and the whole text is now well-formed.
  std::size_t total = 0;
  for (std::size_t i = 0; i < doc.lineCount(); ++i) total += doc.line(i).size();
  CHECK(total > 0);
  CHECK(doc.text().find('\xFF') == std::string::npos);
}

TEST_CASE("a 50 MB generated file loads whole, with its lines indexed", "[document]") {
  test::TempDir temp("document");
  std::string bytes;
  bytes.reserve(50u << 20);
  std::size_t lines = 0;
  while (bytes.size() < (50u << 20)) {
    bytes += "[TX" + std::to_string(lines) + "]: Transfer $107: A=4000 -> 3893, B=4200 -> 4307\n";
    ++lines;
  }
  const std::string path = temp.write("big.txt", bytes);

  std::uint64_t last_done = 0, reports = 0;
  TextLoadOptions options;
  options.progress = [&](std::uint64_t done, std::uint64_t total) {
    CHECK(done <= total);
    CHECK(done >= last_done);
    last_done = done;
    ++reports;
    return true;
  };
  const Document doc = loadTextFile(path, options);
  CHECK(doc.sizeBytes() == bytes.size());
  CHECK(doc.lineCount() == lines);
  CHECK(doc.line(lines - 1) ==
        "[TX" + std::to_string(lines - 1) + "]: Transfer $107: A=4000 -> 3893, B=4200 -> 4307");
  CHECK(last_done == bytes.size());
  CHECK(reports > 5);  // read in chunks, so a UI can show progress
}

TEST_CASE("a load stops when its progress callback says so", "[document]") {
  test::TempDir temp("document");
  const std::string path = temp.write("medium.txt", std::string(10u << 20, 'x'));
  TextLoadOptions options;
  options.progress = [](std::uint64_t, std::uint64_t) { return false; };
  try {
    loadTextFile(path, options);
    FAIL("expected a Cancelled error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Cancelled);
    CHECK(error.where() == path);
  }
}

TEST_CASE("bad paths give an error naming them", "[document]") {
  test::TempDir temp("document");
  const std::string missing = (temp.path() / "missing.txt").string();
  try {
    loadTextFile(missing);
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Io);
    CHECK(error.where() == missing);
    CHECK_THAT(error.what(), Catch::Contains("no such file"));
  }

  const std::string folder = temp.path().string();
  try {
    loadTextFile(folder);
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Io);
    CHECK_THAT(error.what(), Catch::StartsWith(folder + ": is a folder"));
  }

  const std::string big = temp.write("big.txt", std::string(1000, 'a'));
  TextLoadOptions small;
  small.max_bytes = 100;
  CHECK_THROWS_WITH(loadTextFile(big, small), Catch::Contains("more than the limit of 100 bytes"));

  if (::geteuid() != 0) {  // root reads any file
    const std::string locked = temp.write("locked.txt", "secret");
    ::chmod(locked.c_str(), 0);
    CHECK_THROWS_WITH(loadTextFile(locked), Catch::StartsWith(locked + ": cannot be opened"));
  }
  CHECK_THROWS_WITH(loadTextFile("/dev/null"), Catch::Contains("not a regular file"));
}

#include <catch2/catch.hpp>

#include "core/document/document.h"

using namespace studio;
using namespace studio::document;

TEST_CASE("a document indexes its lines", "[document]") {
  Document doc("first\nsecond line\r\n\nlast", "mem", DocumentKind::Text);
  REQUIRE(doc.lineCount() == 4);
  CHECK(doc.line(0) == "first");
  CHECK(doc.line(1) == "second line");  // "\r\n" loses both
  CHECK(doc.line(2).empty());
  CHECK(doc.line(3) == "last");
  CHECK(doc.lineSpan(1) == Span{6, 17});
  CHECK(doc.maxLineBytes() == 12);  // "second line\r"
  CHECK(doc.lineOfByte(0) == 0);
  CHECK(doc.lineOfByte(5) == 0);  // the '\n' of the first line
  CHECK(doc.lineOfByte(6) == 1);
  CHECK(doc.lineOfByte(19) == 2);
  CHECK(doc.lineOfByte(1000) == 3);
  CHECK(doc.sizeBytes() == 24);
}

TEST_CASE("a final newline ends the last line without starting another", "[document]") {
  Document doc("a\nb\n", "mem", DocumentKind::Text);
  REQUIRE(doc.lineCount() == 2);
  CHECK(doc.line(1) == "b");
  CHECK(doc.lineSpan(1) == Span{2, 3});

  Document blank("\n", "mem", DocumentKind::Text);
  REQUIRE(blank.lineCount() == 1);
  CHECK(blank.line(0).empty());
}

TEST_CASE("an empty document has no lines and answers out-of-range queries safely", "[document]") {
  Document doc("", "mem", DocumentKind::Text);
  CHECK(doc.lineCount() == 0);
  CHECK(doc.maxLineBytes() == 0);
  CHECK(doc.line(0).empty());
  CHECK(doc.lineSpan(7) == Span{0, 0});
  CHECK(doc.lineOfByte(0) == 0);
  CHECK(doc.findFileLine("a.py", 1) == -1);
}

TEST_CASE("a repository document finds a file's numbered line", "[document]") {
  const std::string text = "=== a.py ===\nL1: x\nL2: y\n=== b.py ===\nL1: z\n";
  std::vector<RepositoryFile> files = {{"a.py", 0, 2, 4}, {"b.py", 3, 1, 2}};
  Document doc(text, "repo", DocumentKind::Repository, {}, files);
  CHECK(doc.findFileLine("a.py", 2) == 2);
  CHECK(doc.line(2) == "L2: y");
  CHECK(doc.findFileLine("b.py", 1) == 4);
  CHECK(doc.findFileLine("b.py", 2) == -1);
  CHECK(doc.findFileLine("b.py", 0) == -1);
  CHECK(doc.findFileLine("c.py", 1) == -1);
  CHECK(std::string(documentKindName(doc.kind())) == "repository");
}

// The head inspector's strip: zoom and pan limits, and bad input refused (its pooling is
// max_pool.h's, tested with the query × key window's in test_attention_window.cpp).

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "views/attention_strip_view.h"

using namespace studio;
using namespace studio::views;

namespace {

AttentionStrip strip(std::size_t tokens, std::size_t rows) {
  AttentionStrip s;
  s.title = "layer 0 · head 0";
  for (std::size_t r = 0; r < rows; ++r) {
    s.row_names.push_back("row " + std::to_string(r));
    s.rows.emplace_back(tokens, 1e-5f);
  }
  for (std::size_t t = 0; t < tokens; ++t) s.tokens.push_back("t" + std::to_string(t));
  return s;
}

}  // namespace

TEST_CASE("the strip's zoom and pan stay inside the document", "[gui]") {
  AttentionStripView view;
  view.setStrip(strip(1000, 2));
  CHECK(view.firstVisible() == 0);
  CHECK(view.endVisible() == 1000);
  view.zoom(0.1, 500);  // around token 500
  CHECK(view.endVisible() - view.firstVisible() == 100);
  CHECK(view.firstVisible() == 450);
  view.setVisible(-50, 50);  // panned past the start
  CHECK(view.firstVisible() == 0);
  CHECK(view.endVisible() == 100);
  view.setVisible(990, 1090);  // past the end
  CHECK(view.endVisible() == 1000);
  CHECK(view.firstVisible() == 900);
  view.zoom(0.0001, 950);  // never narrower than 8 tokens
  CHECK(view.endVisible() - view.firstVisible() == 8);
  view.zoom(1e6, 0);  // never wider than the document
  CHECK(view.firstVisible() == 0);
  CHECK(view.endVisible() == 1000);

  view.setDifferenceMode(true);
  CHECK(view.differenceMode());
  view.setStrip(strip(1000, 1));  // one row: nothing to subtract
  CHECK_FALSE(view.differenceMode());
}

TEST_CASE("a strip whose rows and tokens differ in length is refused", "[gui]") {
  AttentionStripView view;
  AttentionStrip bad = strip(10, 2);
  bad.rows[1].pop_back();
  CHECK_THROWS_AS(view.setStrip(bad), Error);
  bad = strip(10, 2);
  bad.row_names.pop_back();
  CHECK_THROWS_AS(view.setStrip(bad), Error);
  CHECK(view.empty());
}

#include <catch2/catch.hpp>

#include <QApplication>
#include <QClipboard>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>

#include <memory>

#include "core/document/document.h"
#include "gui/gui_test_support.h"
#include "views/color_scale.h"
#include "views/document_panel.h"
#include "views/document_view.h"

using namespace studio;
using namespace studio::views;

namespace {

std::shared_ptr<const document::Document> makeDocument(std::string text) {
  return std::make_shared<const document::Document>(std::move(text), "memory.txt",
                                                    document::DocumentKind::Text);
}

// The fraction of pixels in `image` that are close to `color`.
double share(const QImage& image, const QColor& color) {
  std::size_t hits = 0;
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - color.red()) < 8 && std::abs(c.green() - color.green()) < 8 &&
          std::abs(c.blue() - color.blue()) < 8) {
        ++hits;
      }
    }
  }
  return static_cast<double>(hits) / (image.width() * image.height());
}

}  // namespace

TEST_CASE("search finds every match, steps through them and wraps around", "[gui]") {
  DocumentView view;
  view.resize(500, 300);
  view.setDocument(makeDocument("alpha Beta\nbeta gamma\nBETA\nnothing\n"));
  QSignalSpy result(&view, &DocumentView::searchResultChanged);

  CHECK(view.search(QStringLiteral("beta"), false) == 3);
  CHECK(view.currentMatch() == 0);
  CHECK(view.currentMatchSpan() == Span{6, 10});
  view.nextMatch();
  CHECK(view.currentMatchSpan() == Span{11, 15});
  view.nextMatch();
  view.nextMatch();  // wraps to the first
  CHECK(view.currentMatch() == 0);
  view.previousMatch();  // and back to the last
  CHECK(view.currentMatch() == 2);
  CHECK(result.last().at(0).toLongLong() == 2);
  CHECK(result.last().at(1).toLongLong() == 3);

  CHECK(view.search(QStringLiteral("beta"), true) == 1);
  CHECK(view.search(QStringLiteral("zeta"), false) == 0);
  CHECK(view.currentMatch() == -1);
  CHECK(view.search(QString(), false) == 0);
}

TEST_CASE("search scrolls a far match into view in a long document", "[gui]") {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + "\n";
  text += "the needle is here\n";
  DocumentView view;
  view.resize(500, 300);
  view.show();
  view.setDocument(makeDocument(text));
  REQUIRE(view.search(QStringLiteral("NEEDLE"), false) == 1);
  const std::size_t first = view.firstVisibleLine();
  CHECK(first <= 20000);
  CHECK(first + view.visibleLineCount() > 20000);
}

TEST_CASE("the document panel's search bar opens with Ctrl+F and counts matches", "[gui]") {
  DocumentPanel panel;
  panel.resize(600, 400);
  panel.show();
  panel.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&panel));
  panel.setDocument(makeDocument("one two\ntwo three\n"));
  CHECK_FALSE(panel.searchVisible());
  QTest::keyClick(&panel, Qt::Key_F, Qt::ControlModifier);
  CHECK(panel.searchVisible());
  panel.setSearchText(QStringLiteral("two"));
  CHECK(panel.view()->matchCount() == 2);
  panel.hideSearch();
  CHECK(panel.view()->matchCount() == 0);
}

TEST_CASE("dragging the mouse selects text and reports the byte range", "[gui]") {
  DocumentView view;
  view.resize(600, 300);
  view.show();
  REQUIRE(QTest::qWaitForWindowExposed(&view));
  view.setDocument(makeDocument("hello world\nsecond line\n"));
  QSignalSpy selected(&view, &DocumentView::selectionChanged);

  QWidget* surface = view.viewport();
  const QPoint start(2, 3);                   // left edge of the first line
  const QPoint end(surface->width() - 5, 3);  // past the end of the first line
  QTest::mousePress(surface, Qt::LeftButton, Qt::NoModifier, start);
  QMouseEvent move(QEvent::MouseMove, end, surface->mapToGlobal(end), Qt::NoButton, Qt::LeftButton,
                   Qt::NoModifier);
  QApplication::sendEvent(surface, &move);
  QTest::mouseRelease(surface, Qt::LeftButton, Qt::NoModifier, end);
  REQUIRE(selected.count() == 1);
  const Span span = selected.first().at(0).value<Span>();
  CHECK(span == Span{0, 11});
  CHECK(view.selectedText() == QStringLiteral("hello world"));

  // A double click selects the word under the mouse.
  int y = 0;
  while (y < surface->height() && view.byteAt(QPoint(2, y)) != 12) ++y;  // the second line
  REQUIRE(y < surface->height());
  QTest::mouseDClick(surface, Qt::LeftButton, Qt::NoModifier, QPoint(20, y + 2));
  CHECK(view.selectedText() == QStringLiteral("second"));

  view.setSelection(Span{6, 11});
  QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier);
  CHECK(QApplication::clipboard()->text() == QStringLiteral("world"));
}

TEST_CASE("target highlights and token weights are drawn on the visible text", "[gui]") {
  DocumentView view;
  view.resize(400, 120);
  view.show();
  REQUIRE(QTest::qWaitForWindowExposed(&view));
  view.setDocument(makeDocument("aaaaaaaaaa bbbbbbbbbb cccccccccc\n"));
  const QImage plain = view.viewport()->grab().toImage();

  // One heavy token and two light ones: the heavy one gets the top of the colour scale.
  view.setTokenWeights({Span{0, 10}, Span{11, 21}, Span{22, 32}}, {0.9f, 0.05f, 0.0f});
  CHECK(view.tokenCount() == 3);
  const QImage weighted = view.viewport()->grab().toImage();
  const QColor top = ColorScale::heat().at(1.0);
  CHECK(share(plain, top) == 0.0);
  CHECK(share(weighted, top) > 0.01);

  view.clearTokenWeights();
  view.setHighlights({Span{11, 21}}, QColor(0, 160, 0));
  const QImage framed = view.viewport()->grab().toImage();
  CHECK(share(framed, QColor(0, 160, 0)) > 0.001);
  CHECK(view.highlights().size() == 1);

  // Mismatched sizes keep the common prefix instead of reading past the end.
  view.setTokenWeights({Span{0, 10}, Span{11, 21}}, {1.f});
  CHECK(view.tokenCount() == 1);
  view.setTokenWeights({Span{0, 10}}, {0.f}, DocumentView::WeightScale::Log);
  view.viewport()->repaint();
}

TEST_CASE("a very long line is laid out only around the visible columns", "[gui]") {
  std::string text(2'000'000, 'x');
  text.replace(1'500'000, 6, "NEEDLE");
  DocumentView view;
  view.resize(600, 200);
  view.show();
  view.setDocument(makeDocument(text));
  CHECK(view.lineText(0).size() < 1000);
  REQUIRE(view.search(QStringLiteral("needle"), false) == 1);
  view.repaint();
  CHECK(view.lineText(0).contains(QStringLiteral("NEEDLE")));
}

TEST_CASE("looksLikeCode picks source files", "[gui]") {
  CHECK(looksLikeCode(QStringLiteral("src/model.py")));
  CHECK(looksLikeCode(QStringLiteral("kernel.cu")));
  CHECK(looksLikeCode(QStringLiteral("CMakeLists.txt")));
  CHECK_FALSE(looksLikeCode(QStringLiteral("notes.txt")));
  CHECK_FALSE(looksLikeCode(QStringLiteral("README")));
}

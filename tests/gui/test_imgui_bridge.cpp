#include <catch2/catch.hpp>

#include <imgui.h>
#include <QApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include <cfloat>
#include <cmath>

#include "core/common/error.h"
#include "gui/gui_test_support.h"
#include "views/diagnostics_panel.h"
#include "views/main_window.h"
#include "views/window_grab.h"

using namespace studio;
using namespace studio::views;
using studio::testing::waitUntil;

namespace {

ImGuiIO& ioOf(const ImGuiWidget& widget) {
  ImGui::SetCurrentContext(widget.imguiContext());
  return ImGui::GetIO();
}

void sendMouse(QWidget* widget, QEvent::Type type, QPointF pos, Qt::MouseButton button,
               Qt::MouseButtons buttons) {
  QMouseEvent event(type, pos, widget->mapToGlobal(pos), button, buttons, Qt::NoModifier);
  QApplication::sendEvent(widget, &event);
}

HeadGrid grid(int layers, int heads) {
  HeadGrid g;
  g.layers = layers;
  g.heads = heads;
  g.title = "Target mass (test)";
  for (int i = 0; i < layers * heads; ++i)
    g.values.push_back(static_cast<float>(i) / (layers * heads));
  return g;
}

// Whether the panel's pixels vary (ImGui drew text and cells) rather than being one flat colour.
bool hasContent(const QImage& image) {
  const QRgb first = image.pixel(0, 0);
  int different = 0;
  for (int y = 0; y < image.height(); y += 2) {
    for (int x = 0; x < image.width(); x += 2) different += image.pixel(x, y) != first;
  }
  return different > 50;
}

}  // namespace

TEST_CASE("the ImGui bridge feeds mouse moves, buttons and the wheel to ImGui", "[gui][gl]") {
  DiagnosticsPanel panel;
  panel.resize(400, 300);
  ImGuiIO& io = ioOf(panel);

  sendMouse(&panel, QEvent::MouseMove, QPointF(50, 60), Qt::NoButton, Qt::NoButton);
  CHECK(io.MousePos.x == 50.f);
  CHECK(io.MousePos.y == 60.f);

  sendMouse(&panel, QEvent::MouseButtonPress, QPointF(51, 61), Qt::LeftButton, Qt::LeftButton);
  CHECK(io.MouseDown[0]);
  sendMouse(&panel, QEvent::MouseButtonRelease, QPointF(51, 61), Qt::LeftButton, Qt::NoButton);
  // Released before any frame: ImGui must still see the click in the next frame.
  CHECK(io.MouseDown[0]);
  panel.buildFrame();
  ImGui::SetCurrentContext(panel.imguiContext());
  CHECK(io.MouseClicked[0]);
  panel.buildFrame();
  CHECK_FALSE(io.MouseDown[0]);

  sendMouse(&panel, QEvent::MouseButtonPress, QPointF(51, 61), Qt::RightButton, Qt::RightButton);
  CHECK(io.MouseDown[1]);

  QWheelEvent wheel(QPointF(40, 40), panel.mapToGlobal(QPointF(40, 40)), QPoint(), QPoint(0, 240),
                    Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(&panel, &wheel);
  CHECK(io.MouseWheel == 2.f);

  QEvent leave(QEvent::Leave);
  QApplication::sendEvent(&panel, &leave);
  CHECK(io.MousePos.x == -FLT_MAX);
}

TEST_CASE("the ImGui bridge gives ImGui the widget's size and device pixel ratio", "[gui][gl]") {
  DiagnosticsPanel panel;
  panel.resize(420, 310);
  panel.buildFrame();
  ImGuiIO& io = ioOf(panel);
  CHECK(io.DisplaySize.x == 420.f);
  CHECK(io.DisplaySize.y == 310.f);
  const auto dpr = static_cast<float>(panel.devicePixelRatioF());
  CHECK(io.DisplayFramebufferScale.x == dpr);
  // The font atlas is rasterised at the ratio and scaled back, so text keeps its logical size.
  CHECK(io.FontGlobalScale == Approx(1.f / dpr));
  REQUIRE(io.Fonts->IsBuilt());
  panel.resize(200, 150);
  panel.buildFrame();
  CHECK(ioOf(panel).DisplaySize.x == 200.f);
  CHECK(ioOf(panel).DisplaySize.y == 150.f);
}

TEST_CASE("the ImGui bridge feeds keys, modifiers and text to ImGui", "[gui][gl]") {
  DiagnosticsPanel panel;
  ImGuiIO& io = ioOf(panel);

  QKeyEvent press(QEvent::KeyPress, Qt::Key_A, Qt::ControlModifier, QStringLiteral("\x01"));
  QApplication::sendEvent(&panel, &press);
  CHECK(io.KeysDown[io.KeyMap[ImGuiKey_A]]);
  CHECK(io.KeyCtrl);
  CHECK_FALSE(io.KeyShift);
  CHECK(io.InputQueueCharacters.Size == 0);  // Ctrl+A is a shortcut, not text

  QKeyEvent release(QEvent::KeyRelease, Qt::Key_A, Qt::NoModifier);
  QApplication::sendEvent(&panel, &release);
  CHECK_FALSE(io.KeysDown[io.KeyMap[ImGuiKey_A]]);
  CHECK_FALSE(io.KeyCtrl);

  QKeyEvent typed(QEvent::KeyPress, Qt::Key_X, Qt::ShiftModifier, QStringLiteral("X"));
  QApplication::sendEvent(&panel, &typed);
  CHECK(io.KeyShift);
  REQUIRE(io.InputQueueCharacters.Size == 1);
  CHECK(io.InputQueueCharacters[0] == 'X');

  QKeyEvent escape(QEvent::KeyPress, Qt::Key_Escape, Qt::NoModifier);
  QApplication::sendEvent(&panel, &escape);
  CHECK(io.KeysDown[io.KeyMap[ImGuiKey_Escape]]);
  QKeyEvent left(QEvent::KeyPress, Qt::Key_Left, Qt::NoModifier);
  QApplication::sendEvent(&panel, &left);
  CHECK(io.KeysDown[io.KeyMap[ImGuiKey_LeftArrow]]);
}

TEST_CASE("each ImGui panel has its own context", "[gui][gl]") {
  DiagnosticsPanel a;
  DiagnosticsPanel b;
  REQUIRE(a.imguiContext() != b.imguiContext());
  sendMouse(&a, QEvent::MouseMove, QPointF(10, 10), Qt::NoButton, Qt::NoButton);
  sendMouse(&b, QEvent::MouseMove, QPointF(99, 99), Qt::NoButton, Qt::NoButton);
  CHECK(ioOf(a).MousePos.x == 10.f);
  CHECK(ioOf(b).MousePos.x == 99.f);
}

TEST_CASE("the head grid shows the cell under the mouse and reports clicks", "[gui][gl]") {
  DiagnosticsPanel panel;
  panel.resize(500, 420);
  CHECK_THROWS_AS(panel.setHeadGrid(HeadGrid{2, 3, {1.f, 2.f}, "", "mass"}), studio::Error);
  panel.setHeadGrid(grid(4, 8));
  CHECK(panel.headGrid().minimum() == 0.f);
  CHECK(panel.headGrid().maximum() == Approx(31.f / 32.f));
  QSignalSpy clicked(&panel, &DiagnosticsPanel::headClicked);

  // Find a point over the grid by scanning, as a person would move the mouse.
  std::optional<HeadGridView::Cell> first;
  QPointF at;
  for (int y = 0; y < 300 && !first; y += 4) {
    for (int x = 0; x < 500 && !first; x += 4) {
      sendMouse(&panel, QEvent::MouseMove, QPointF(x, y), Qt::NoButton, Qt::NoButton);
      panel.buildFrame();
      if (panel.headGrid().hoveredCell()) {
        first = panel.headGrid().hoveredCell();
        at = QPointF(x, y);
      }
    }
  }
  REQUIRE(first);
  CHECK(*first == HeadGridView::Cell{0, 0});  // scanning from the top left meets cell (0, 0)

  // Further right and down: a later head and layer.
  const QPointF later = at + QPointF(60, 60);
  sendMouse(&panel, QEvent::MouseMove, later, Qt::NoButton, Qt::NoButton);
  panel.buildFrame();
  REQUIRE(panel.headGrid().hoveredCell());
  CHECK(panel.headGrid().hoveredCell()->second > 0);
  CHECK(panel.headGrid().hoveredCell()->first > 0);
  const HeadGridView::Cell target = *panel.headGrid().hoveredCell();

  sendMouse(&panel, QEvent::MouseButtonPress, later, Qt::LeftButton, Qt::LeftButton);
  panel.buildFrame();
  sendMouse(&panel, QEvent::MouseButtonRelease, later, Qt::LeftButton, Qt::NoButton);
  panel.buildFrame();
  REQUIRE(clicked.count() == 1);
  CHECK(clicked.first().at(0).toInt() == target.first);
  CHECK(clicked.first().at(1).toInt() == target.second);
  CHECK(panel.headGrid().selectedCell() == target);

  // Away from the grid nothing is hovered.
  QEvent leave(QEvent::Leave);
  QApplication::sendEvent(&panel, &leave);
  panel.buildFrame();
  CHECK_FALSE(panel.headGrid().hoveredCell());
}

TEST_CASE("the ImGui panel draws with OpenGL on demand, not in a loop", "[gui][gl]") {
  MainWindow window(studio::testing::isolatedWindow());
  window.resize(1200, 800);
  DiagnosticsPanel* panel = window.diagnosticsPanel();
  panel->setHeadGrid(grid(12, 16));
  if (!ImGuiWidget::openGlAvailable()) {
    WARN("No OpenGL context can be created on the platform \""
         << QGuiApplication::platformName().toStdString()
         << "\": the GL drawing checks are skipped; the panel's ImGui frame runs without GL. "
            "Run under xvfb-run with QT_QPA_PLATFORM=xcb to draw.");
    CHECK(panel->window() != &window);  // kept out of the window, which says why instead
    window.show();
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    panel->resize(500, 400);
    panel->buildFrame();
    ImGui::SetCurrentContext(panel->imguiContext());
    CHECK(ImGui::GetDrawData() != nullptr);
    CHECK(ImGui::GetDrawData()->TotalVtxCount > 0);
    return;
  }
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  REQUIRE(waitUntil([&] { return panel->frameCount() > 0; }, 5000));
  REQUIRE(panel->glReady());
  CHECK(panel->glDescription().startsWith(QStringLiteral("OpenGL")));
  // Let the follow-up frames finish (no frame for 300 ms: a frame can take that long on a software
  // renderer under the sanitizers), then nothing must be drawn while nothing happens.
  const auto settle = [&] {  // at most 20 × 300 ms: a panel drawing in a loop fails below
    auto frames = panel->frameCount();
    for (int i = 0; i < 20; ++i, frames = panel->frameCount()) {
      QTest::qWait(300);
      if (panel->frameCount() == frames) break;
    }
    return frames;
  };
  const auto settled = settle();
  QTest::qWait(400);
  CHECK(panel->frameCount() == settled);

  // An input event draws a few frames, then drawing stops again.
  sendMouse(panel, QEvent::MouseMove, QPointF(100, 100), Qt::NoButton, Qt::NoButton);
  REQUIRE(waitUntil([&] { return panel->frameCount() > settled; }, 3000));
  const auto after_input = settle();
  CHECK(after_input - settled <= 6);
  QTest::qWait(300);
  CHECK(panel->frameCount() == after_input);

  const QImage framebuffer = panel->grabFramebuffer();
  REQUIRE_FALSE(framebuffer.isNull());
  CHECK(hasContent(framebuffer));

  // The window picture includes the GL panel's pixels.
  const QImage shot = grabWindowImage(&window);
  CHECK(shot.size() == window.size() * window.devicePixelRatio());
  const QRect area(panel->mapTo(&window, QPoint(0, 0)), panel->size());
  CHECK(hasContent(shot.copy(area)));
}

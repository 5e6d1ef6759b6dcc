#include "app/studio/screenshot_runner.h"

#include <QCoreApplication>
#include <QImageWriter>
#include <QWindow>

#include <cstdio>

#include "views/diagnostics_panel.h"
#include "views/head_inspector_panel.h"
#include "views/main_window.h"
#include "views/window_grab.h"

namespace studio::app {

namespace {

constexpr int kTimeoutMs = 120000;
constexpr int kPollMs = 50;
// Frames the ImGui panel draws after everything is ready, so hover and layout have settled.
constexpr quint64 kSettleFrames = 2;

}  // namespace

ScreenshotRunner::ScreenshotRunner(views::MainWindow* window, QString output,
                                   bool waiting_for_document, QObject* parent)
    : QObject(parent),
      m_window(window),
      m_output(std::move(output)),
      m_waiting_for_document(waiting_for_document) {
  connect(window, &views::MainWindow::documentLoaded, this,
          [this] { m_waiting_for_document = false; });
  connect(window, &views::MainWindow::documentFailed, this,
          [this](const QString& message) { fail(message, 1); });
  m_poll.setInterval(kPollMs);
  connect(&m_poll, &QTimer::timeout, this, &ScreenshotRunner::poll);
}

void ScreenshotRunner::start() {
  m_clock.start();
  m_poll.start();
}

void ScreenshotRunner::poll() {
  if (m_clock.elapsed() > kTimeoutMs) {
    fail(QStringLiteral("the window was not ready within %1 s").arg(kTimeoutMs / 1000), 3);
    return;
  }
  const QWindow* handle = m_window->windowHandle();
  if (m_waiting_for_document || !handle || !handle->isExposed()) return;
  views::DiagnosticsPanel* grid = m_window->diagnosticsPanel();
  views::HeadInspectorPanel* inspector = m_window->headInspector();
  if (m_inspect && !m_inspected) {
    if (grid->headGrid().empty()) {
      fail(QStringLiteral("--inspect: no run with a head grid is shown (open a session with runs)"), 1);
      return;
    }
    m_inspected = true;
    grid->inspectHead(m_inspect->first, m_inspect->second);
    if (inspector->strip().empty()) {
      fail(QStringLiteral("--inspect: the run kept no attention for layer %1, head %2")
               .arg(m_inspect->first)
               .arg(m_inspect->second),
           1);
    }
    return;
  }
  if (m_inspect && inspector->queryKeyWindow().empty()) {
    const std::string& message = inspector->queryKeyWindow().message();
    if (message.rfind("No query", 0) == 0) fail(QString::fromStdString(message), 1);
    return;  // the replay is still going
  }
  // The inspector draws when a head is inspected, the grid otherwise.
  views::ImGuiWidget* panel = m_inspect ? static_cast<views::ImGuiWidget*>(inspector) : grid;
  if (!m_ready) {
    m_ready = true;
    m_frames_at_ready = panel->frameCount();
    grid->requestFrame();
    panel->requestFrame();
    return;
  }
  // Without an OpenGL context the panel never draws; the picture is still taken, with a warning.
  if (!panel->glReady()) {
    if (m_clock.elapsed() < 3000) return;
    std::fprintf(stderr,
                 "studio: warning: the ImGui panel has no OpenGL context (%s); it is blank "
                 "in the screenshot\n",
                 qPrintable(panel->glDescription()));
  } else if (panel->frameCount() < m_frames_at_ready + kSettleFrames) {
    return;
  }
  m_poll.stop();
  capture();
}

void ScreenshotRunner::capture() {
  const QImage image = views::grabWindowImage(m_window);
  if (image.isNull()) {
    fail(QStringLiteral("grabbing the window gave an empty image"), 2);
    return;
  }
  QImageWriter writer(m_output, "png");
  writer.setQuality(0);  // PNG is lossless: Qt maps quality 0 to the strongest zlib compression
  if (!writer.write(image)) {
    fail(QStringLiteral("%1: %2").arg(m_output, writer.errorString()), 2);
    return;
  }
  std::printf("studio: saved %s (%d × %d)\n", qPrintable(m_output), image.width(), image.height());
  std::fflush(stdout);
  QCoreApplication::exit(0);
}

void ScreenshotRunner::fail(const QString& message, int code) {
  m_poll.stop();
  std::fprintf(stderr, "studio: %s\n", qPrintable(message));
  QCoreApplication::exit(code);
}

}  // namespace studio::app

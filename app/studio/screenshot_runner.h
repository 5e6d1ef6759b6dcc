#pragma once
// `studio --screenshot FILE`: waits until the window has been drawn (the document loaded when one
// was opened, the head inspected and its query × key window computed when one was asked for, the
// ImGui panel rendered), saves a PNG of the whole window and quits with 0, or with a non-zero
// code and a message when anything fails or takes too long.

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>

#include <optional>
#include <utility>

namespace studio::views {
class MainWindow;
}

namespace studio::app {

// No Q_OBJECT: it only connects to lambdas and member functions, so the studio target needs no moc.
class ScreenshotRunner : public QObject {
 public:
  ScreenshotRunner(views::MainWindow* window, QString output, bool waiting_for_document,
                   QObject* parent = nullptr);
  // Inspects (layer, head) of the run the head grid shows before the picture is taken.
  void setInspect(std::pair<int, int> head) { m_inspect = head; }
  void start();

 private:
  void poll();
  void capture();
  void fail(const QString& message, int code);

  views::MainWindow* m_window;
  QString m_output;
  bool m_waiting_for_document;
  quint64 m_frames_at_ready = 0;
  bool m_ready = false;
  std::optional<std::pair<int, int>> m_inspect;
  bool m_inspected = false;
  QTimer m_poll;
  QElapsedTimer m_clock;
};

}  // namespace studio::app

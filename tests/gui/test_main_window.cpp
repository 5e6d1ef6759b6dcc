#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <torch/version.h>
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QScreen>
#include <QSettings>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTimer>

#include "gui/gui_test_support.h"
#include "views/about_box.h"
#include "views/document_panel.h"
#include "views/document_view.h"
#include "views/main_window.h"
#include "views/runs_panel.h"

using namespace studio;
using namespace studio::views;
using studio::testing::fixture;
using studio::testing::isolatedWindow;
using studio::testing::waitUntil;

TEST_CASE("an opened text file appears in the document panel", "[gui]") {
  MainWindow window(isolatedWindow());
  window.show();
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openDocument(fixture("utf8.txt"));
  REQUIRE(loaded.wait(10000));
  const DocumentView* view = window.documentPanel()->view();
  CHECK(view->lineCount() == 3);
  CHECK(view->lineText(0) == QString::fromUtf8("Grüße, 世界!"));
  CHECK(view->lineText(2) == QStringLiteral("    indented third line"));  // tab to 4 spaces
  CHECK(view->firstVisibleLine() == 0);
  CHECK_FALSE(view->showLineNumbers());  // prose, not code
  CHECK(window.windowTitle().startsWith(QStringLiteral("utf8.txt")));
  CHECK(window.documentPanel()->summary().contains(QStringLiteral("3 lines")));
  CHECK(window.currentDocument()->sourcePath() == fixture("utf8.txt").toStdString());
  CHECK(window.recentFiles().entries().first().path.endsWith(QStringLiteral("utf8.txt")));
}

TEST_CASE("a folder opens as one repository document with line numbers", "[gui]") {
  MainWindow window(isolatedWindow());
  window.show();
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openPath(fixture("tiny_repo"));  // a folder: opened as a repository
  REQUIRE(loaded.wait(10000));
  const DocumentView* view = window.documentPanel()->view();
  CHECK(window.currentDocument()->kind() == document::DocumentKind::Repository);
  CHECK(view->lineText(0) == QStringLiteral("=== .gitignore ==="));
  CHECK(view->lineText(1) == QStringLiteral("L1: *.log"));
  CHECK(view->lineCount() == 30);
  CHECK(view->showLineNumbers());
  const QString summary = window.documentPanel()->summary();
  CHECK(summary.contains(QStringLiteral("6 files")));
  CHECK(summary.contains(QStringLiteral("1 binary")));
  CHECK(summary.contains(QStringLiteral("2 ignored")));
}

TEST_CASE("invalid UTF-8 is shown with replacement characters", "[gui]") {
  MainWindow window(isolatedWindow());
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openDocument(fixture("latin1.txt"));
  REQUIRE(loaded.wait(10000));
  const QString first = window.documentPanel()->view()->lineText(0);
  CHECK(first.count(QChar(0xFFFD)) == 4);
  CHECK(first.startsWith(QStringLiteral("caf")));
  CHECK(window.documentPanel()->summary().contains(QStringLiteral("4 invalid UTF-8")));
}

TEST_CASE("an empty file and a file of random bytes open without trouble", "[gui]") {
  QTemporaryDir temp;
  QFile empty(temp.filePath(QStringLiteral("empty.txt")));
  REQUIRE(empty.open(QIODevice::WriteOnly));
  empty.close();
  QFile random(temp.filePath(QStringLiteral("random.bin")));
  REQUIRE(random.open(QIODevice::WriteOnly));
  QByteArray bytes(64 * 1024, '\0');
  quint32 state = 12345;
  for (char& c : bytes) {
    state = state * 1664525u + 1013904223u;
    c = static_cast<char>(state >> 24);
  }
  random.write(bytes);
  random.close();

  MainWindow window(isolatedWindow());
  window.show();
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openDocument(empty.fileName());
  REQUIRE(loaded.wait(10000));
  CHECK(window.documentPanel()->view()->lineCount() == 0);
  window.documentPanel()->view()->repaint();

  window.openDocument(random.fileName());
  REQUIRE(loaded.wait(10000));
  DocumentView* view = window.documentPanel()->view();
  CHECK(view->lineCount() > 10);
  CHECK(window.currentDocument()->stats().invalid_utf8_replaced > 1000);
  // Control bytes are drawn as visible symbols, and painting every line is safe.
  bool any_symbol = false;
  for (std::size_t i = 0; i < view->lineCount(); ++i) {
    for (QChar c : view->lineText(i)) any_symbol |= c.unicode() >= 0x2400 && c.unicode() <= 0x2421;
  }
  CHECK(any_symbol);
  for (std::size_t line = 0; line < view->lineCount(); line += view->visibleLineCount()) {
    view->scrollToLine(line);
    view->repaint();
  }
}

TEST_CASE("opening a missing path or a folder as a file reports an error", "[gui]") {
  MainWindow window(isolatedWindow());
  QSignalSpy failed(&window, &MainWindow::documentFailed);
  const QString missing = fixture("does-not-exist.txt");
  window.openDocument(missing);
  REQUIRE(failed.wait(10000));
  CHECK(failed.takeFirst().at(0).toString() == missing + QStringLiteral(": no such file"));
  CHECK(window.statusBar()->currentMessage().contains(QStringLiteral("no such file")));

  window.openDocument(fixture("tiny_repo"));
  REQUIRE(failed.wait(10000));
  CHECK(failed.takeFirst().at(0).toString().contains(QStringLiteral("is a folder")));
  CHECK(window.currentDocument() == nullptr);
}

TEST_CASE("opening a 50 MB file returns at once and the window stays responsive", "[gui]") {
  QTemporaryDir temp;
  const QString path = temp.filePath(QStringLiteral("big.txt"));
  const QByteArray line =
      "The quick brown fox jumps over the lazy dog; the haystack keeps growing.\n";
  {
    QFile file(path);
    REQUIRE(file.open(QIODevice::WriteOnly));
    QByteArray block;
    for (int i = 0; i < 1000; ++i) block += line;
    while (file.size() < 50ll << 20) file.write(block);
  }
  const qint64 size = QFileInfo(path).size();

  MainWindow window(isolatedWindow());
  window.show();
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openDocument(path);
  // The call returned while the file is still being read on a worker thread.
  CHECK(window.isLoading());
  CHECK(window.currentDocument() == nullptr);
  CHECK(loaded.count() == 0);
  // The UI thread keeps handling events during the load.
  int ticks = 0;
  QTimer ticker;
  QObject::connect(&ticker, &QTimer::timeout, [&] { ++ticks; });
  ticker.start(0);
  REQUIRE(loaded.wait(60000));
  ticker.stop();
  CHECK(ticks > 0);
  CHECK_FALSE(window.isLoading());
  CHECK(window.currentDocument()->sizeBytes() == static_cast<std::uint64_t>(size));
  DocumentView* view = window.documentPanel()->view();
  CHECK(view->lineCount() == static_cast<std::size_t>(size / line.size()));
  // Scrolling to the end lays out only the last screen of lines.
  view->scrollToLine(view->lineCount() - 1);
  view->repaint();
  CHECK(view->lineText(view->lineCount() - 1).startsWith(QStringLiteral("The quick brown fox")));
}

TEST_CASE("a newer open replaces a slower one still loading", "[gui]") {
  QTemporaryDir temp;
  const QString big = temp.filePath(QStringLiteral("big.txt"));
  {
    QFile file(big);
    REQUIRE(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(30 << 20, 'x'));
  }
  MainWindow window(isolatedWindow());
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  QSignalSpy failed(&window, &MainWindow::documentFailed);
  window.openDocument(big);
  window.openDocument(fixture("utf8.txt"));
  REQUIRE(loaded.wait(30000));
  // Let the first job finish or stop, and deliver whatever it would deliver.
  REQUIRE(QThreadPool::globalInstance()->waitForDone(30000));
  QCoreApplication::processEvents();
  QCoreApplication::processEvents();
  CHECK(loaded.count() == 1);
  CHECK(failed.count() == 0);
  CHECK(loaded.first().at(0).toString().endsWith(QStringLiteral("utf8.txt")));
  CHECK(window.documentPanel()->view()->lineCount() == 3);
}

TEST_CASE("the about text names the versions of torch, Qt, SQLite and CUDA", "[gui]") {
  const QString text = aboutText();
  CHECK(text.contains(QStringLiteral("torch")));
  CHECK(text.contains(QStringLiteral(TORCH_VERSION)));
  CHECK(text.contains(QStringLiteral("SQLite")));
  CHECK(text.contains(QStringLiteral(SQLITE_VERSION)));
  CHECK(text.contains(QStringLiteral("CUDA")));
  CHECK(text.contains(QStringLiteral("Qt (runtime)")));
  CHECK(text.contains(QString::fromLatin1(qVersion())));
  CHECK(text.contains(QStringLiteral("Dear ImGui")));
}

TEST_CASE("the status bar shows the device and the model folder", "[gui]") {
  MainWindow window(isolatedWindow());
  CHECK((window.deviceText() == QStringLiteral("device: cpu") ||
         window.deviceText() == QStringLiteral("device: cuda")));
  CHECK(window.modelText() == QStringLiteral("model: none"));
  QSignalSpy changed(&window, &MainWindow::modelChanged);
  REQUIRE(window.setModelPath(fixture("tiny_repo")));
  CHECK(window.modelText() == QStringLiteral("model: tiny_repo"));
  CHECK(changed.count() == 1);
  CHECK_FALSE(window.setModelPath(fixture("no-such-model")));
  CHECK(window.modelText() == QStringLiteral("model: tiny_repo"));
  CHECK(window.statusBar()->currentMessage().contains(QStringLiteral("no such folder")));
}

TEST_CASE("a session is a studio session file: created when missing, others refused", "[gui]") {
  QTemporaryDir temp;
  const QString foreign = temp.filePath(QStringLiteral("other.sqlite"));
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(foreign.toUtf8().constData(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", nullptr, nullptr,
                       nullptr) == SQLITE_OK);
  sqlite3_close(db);
  const QString good = temp.filePath(QStringLiteral("runs.sqlite"));

  MainWindow window(isolatedWindow());
  QSignalSpy opened(&window, &MainWindow::sessionOpened);
  CHECK(window.openSession(good));  // a missing file is a new session
  CHECK(opened.count() == 1);
  CHECK(window.sessionPath() == good);
  CHECK(QFileInfo::exists(good));
  CHECK_FALSE(window.openSession(foreign));
  CHECK(window.statusBar()->currentMessage().contains(QStringLiteral("other.sqlite")));
  CHECK_FALSE(window.openSession(fixture("utf8.txt")));
  CHECK_FALSE(window.openSession(temp.filePath(QStringLiteral("no-folder/runs.sqlite"))));
  CHECK(window.sessionPath() == good);  // a refused file leaves the session open
  CHECK(window.newSession(temp.filePath(QStringLiteral("fresh.sqlite"))));
  CHECK_FALSE(window.newSession(good));  // nothing is overwritten
  CHECK(window.saveSessionAs(temp.filePath(QStringLiteral("copy.sqlite"))));
  CHECK(window.sessionPath() == temp.filePath(QStringLiteral("copy.sqlite")));
}

TEST_CASE("window geometry, dock layout and recent files survive a restart", "[gui]") {
  studio::testing::clearSettings();
  QSize saved_size;
  {
    MainWindow first;  // reads and writes QSettings (a temporary folder in these tests)
    first.show();
    first.resize(1100, 720);
    QSignalSpy loaded(&first, &MainWindow::documentLoaded);
    first.openDocument(fixture("crlf.txt"));
    REQUIRE(loaded.wait(10000));
    first.dock(QStringLiteral("runsDock"))->hide();
    first.addDockWidget(Qt::RightDockWidgetArea, first.dock(QStringLiteral("documentDock")));
    const bool sized = waitUntil([&] { return first.size() == QSize(1100, 720); }, 3000);
    INFO("size " << first.size().width() << "x" << first.size().height() << ", minimum "
                 << first.minimumSizeHint().width() << "x" << first.minimumSizeHint().height());
    REQUIRE(sized);
    saved_size = first.size();
    first.close();
  }
  MainWindow second;
  second.show();
  CHECK(second.size() == saved_size);
  CHECK(second.dock(QStringLiteral("runsDock"))->isHidden());
  CHECK_FALSE(second.dock(QStringLiteral("diagnosticsDock"))->isHidden());
  CHECK(second.dockWidgetArea(second.dock(QStringLiteral("documentDock"))) == Qt::RightDockWidgetArea);
  REQUIRE_FALSE(second.recentFiles().entries().isEmpty());
  CHECK(second.recentFiles().entries().first().path.endsWith(QStringLiteral("crlf.txt")));

  // Reset layout brings the default arrangement back.
  second.resetLayout();
  CHECK_FALSE(second.dock(QStringLiteral("runsDock"))->isHidden());
  CHECK(second.dockWidgetArea(second.dock(QStringLiteral("documentDock"))) == Qt::LeftDockWidgetArea);
  CHECK(second.dockWidgetArea(second.dock(QStringLiteral("runsDock"))) == Qt::RightDockWidgetArea);
  second.close();
  studio::testing::clearSettings();
}

TEST_CASE("the first start fills the screen; layouts are saved per screen size", "[gui]") {
  studio::testing::clearSettings();
  const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
  {
    MainWindow first;
    first.show();
    CHECK(first.width() >= std::min(available.width(), first.minimumSizeHint().width()));
    CHECK(first.height() >= std::min(available.height(), first.minimumSizeHint().height()));
    CHECK(first.width() >= available.width() * 9 / 10);
    first.close();
  }
  const QString screen =
      QStringLiteral("mainWindow/%1x%2/").arg(available.width()).arg(available.height());
  QSettings settings;
  CHECK(settings.contains(screen + QStringLiteral("geometry")));
  CHECK(settings.contains(screen + QStringLiteral("state")));
  studio::testing::clearSettings();
}

TEST_CASE("Ctrl + and Ctrl − zoom the docks' text; Esc cancels runs", "[gui]") {
  MainWindow window(isolatedWindow());
  const qreal before = window.documentPanel()->view()->font().pointSizeF();
  window.zoomText(2);
  CHECK(window.textZoom() == 2);
  CHECK(window.documentPanel()->view()->font().pointSizeF() > before);
  CHECK(window.findChild<RunsPanel*>()->font().pointSizeF() > QApplication::font().pointSizeF());
  window.zoomText(0);
  CHECK(window.documentPanel()->view()->font().pointSizeF() == Approx(before));
  bool escape_cancels = false, ctrl_r_runs = false, zoom_in = false;
  for (const QAction* action : window.findChildren<QAction*>()) {
    escape_cancels |= action->shortcut() == QKeySequence(Qt::Key_Escape) &&
                      action->text().contains(QStringLiteral("ancel"));
    ctrl_r_runs |= action->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_R);
    zoom_in |= action->shortcuts().contains(QKeySequence(QKeySequence::ZoomIn));
  }
  CHECK(escape_cancels);
  CHECK(ctrl_r_runs);
  CHECK(zoom_in);
}

TEST_CASE("a window told not to restore ignores the saved layout", "[gui]") {
  studio::testing::clearSettings();
  {
    MainWindow first;
    first.show();
    first.dock(QStringLiteral("diagnosticsDock"))->hide();
    first.close();
  }
  MainWindow isolated(isolatedWindow());
  isolated.show();
  CHECK_FALSE(isolated.dock(QStringLiteral("diagnosticsDock"))->isHidden());
  studio::testing::clearSettings();
}

TEST_CASE("a task item file opens as its context with question, targets and answers", "[gui]") {
  QTemporaryDir temp;
  const QString path = temp.filePath(QStringLiteral("item.json"));
  task::TaskItem item;
  item.task = "niah";
  item.id = "niah-test";
  item.context = "Grüße. The access code is K7Q2ZZ9A. Bye.";
  item.question = "What is the access code?";
  item.task_description = "Find the code.";
  item.answers = {"K7Q2ZZ9A"};
  item.targets = {{26, 34}};  // code points: "Grüße" has two 2-byte characters
  item.scorer = "exact_match";
  {
    QFile file(path);
    REQUIRE(file.open(QIODevice::WriteOnly));
    file.write(QByteArray::fromStdString(item.toJson().dump()));
  }
  MainWindow window(isolatedWindow());
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openDocument(path);
  REQUIRE(loaded.wait(10000));
  REQUIRE(window.currentItem());
  CHECK(window.currentItem()->answers == item.answers);
  CHECK(window.currentDocument()->text() == item.context);
  CHECK(window.runsPanel()->questionEdit()->text() == QString::fromStdString(item.question));
  REQUIRE(window.targets().size() == 1);
  const Span bytes = window.targets().front();
  CHECK(window.currentDocument()->text().substr(bytes.start, bytes.size()) == "K7Q2ZZ9A");

  // Any other JSON is a plain text document, and a new document forgets the item.
  const QString other = temp.filePath(QStringLiteral("config.json"));
  {
    QFile file(other);
    REQUIRE(file.open(QIODevice::WriteOnly));
    file.write("{\"context\": \"no question here\"}");
  }
  window.openDocument(other);
  REQUIRE(loaded.wait(10000));
  CHECK_FALSE(window.currentItem());
  CHECK(window.targets().empty());
  CHECK(window.currentDocument()->text() == "{\"context\": \"no question here\"}");
}

TEST_CASE("a broken task item file is refused naming the field", "[gui]") {
  QTemporaryDir temp;
  const QString path = temp.filePath(QStringLiteral("item.json"));
  {
    QFile file(path);
    REQUIRE(file.open(QIODevice::WriteOnly));
    file.write(R"({"context": "abc", "question": "q?", "targets": [{"start": 2, "end": 50}]})");
  }
  MainWindow window(isolatedWindow());
  QSignalSpy failed(&window, &MainWindow::documentFailed);
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openDocument(path);
  REQUIRE(waitUntil([&] { return failed.count() + loaded.count() > 0; }));
  REQUIRE(failed.count() == 1);
  CHECK(failed.first().first().toString().contains(QStringLiteral("targets[0]")));
  CHECK_FALSE(window.currentItem());
}

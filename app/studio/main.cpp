// studio: the desktop studio.
//   studio [--open PATH] [--model DIR] [--session FILE] [--run METHOD[:k=v,...]]...
//          [--quit-when-done] [--screenshot FILE [--inspect LAYER:HEAD]]

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QFileInfo>
#include <QIcon>
#include <QStatusBar>
#include <QTimer>

#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "app/studio/screenshot_runner.h"
#include "core/common/runtime.h"
#include "core/engine/method.h"
#include "core/model/kernel_switches.h"
#include "plugins/builtin_plugins.h"
#include "studio/build_info.h"
#include "views/main_window.h"
#include "views/run_controller.h"
#include "views/run_traces.h"
#include "views/studio_panels.h"

namespace {

// Qt's session management takes -session/--session out of argv inside QApplication's constructor
// (X11 session restore), so the studio's own --session FILE is taken out before Qt sees it.
QString takeSessionArgument(int& argc, char** argv) {
  QString path;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const QString argument = QString::fromLocal8Bit(argv[i]);
    if ((argument == QLatin1String("--session") || argument == QLatin1String("-session")) &&
        i + 1 < argc) {
      path = QString::fromLocal8Bit(argv[++i]);
    } else if (argument.startsWith(QLatin1String("--session="))) {
      path = argument.mid(10);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argv[kept] = nullptr;
  argc = kept;
  return path;
}

// "qttt:steps=8,lr=1e-5" -> {qttt, {"steps": "8", "lr": "1e-5"}}; empty method on a bad item.
studio::views::ScriptedRun parseRun(const QString& text, QString& error) {
  studio::views::ScriptedRun run;
  const int colon = text.indexOf(QLatin1Char(':'));
  run.method = text.left(colon < 0 ? text.size() : colon).trimmed().toStdString();
  if (!studio::engine::MethodRegistry::instance().find(run.method)) {
    error = QStringLiteral("--run %1: unknown method '%2'").arg(text, QString::fromStdString(run.method));
    return {};
  }
  if (colon < 0) return run;
  for (const QString& item : text.mid(colon + 1).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    const int equals = item.indexOf(QLatin1Char('='));
    if (equals <= 0) {
      error = QStringLiteral("--run %1: '%2' is not key=value").arg(text, item);
      return {};
    }
    run.params[item.left(equals).trimmed().toStdString()] = item.mid(equals + 1).trimmed().toStdString();
  }
  return run;
}

// The object name of the panel the View menu calls `title` (any case), or an empty string;
// `titles` gets every panel's title.
QString panelObjectName(const QString& title, QStringList& titles) {
  QString found;
  for (const auto& panel : studio::views::studioPanels()) {
    const QString name = studio::views::panelTitle(panel);
    titles << name;
    if (found.isEmpty() && name.compare(title, Qt::CaseInsensitive) == 0) {
      found = QString::fromLatin1(panel.object_name);
    }
  }
  return found;
}

// "LAYER:HEAD" as two numbers >= 0, or nothing.
std::optional<std::pair<int, int>> parseInspect(const QString& text) {
  const QStringList parts = text.split(QLatin1Char(':'));
  if (parts.size() != 2) return std::nullopt;
  bool layer_ok = false, head_ok = false;
  const int layer = parts[0].toInt(&layer_ok);
  const int head = parts[1].toInt(&head_ok);
  if (!layer_ok || !head_ok || layer < 0 || head < 0) return std::nullopt;
  return std::make_pair(layer, head);
}

}  // namespace

int main(int argc, char** argv) {
  studio::tuneProcessEnvironment(argv);
  const QString session_path = takeSessionArgument(argc, argv);
  QApplication application(argc, argv);
  Q_INIT_RESOURCE(studio_views);  // the views library is static: its resources need a nudge
  QApplication::setOrganizationName(QStringLiteral("ttt-studio"));
  QApplication::setApplicationName(QStringLiteral("studio"));
  QApplication::setApplicationDisplayName(QStringLiteral("TTT Studio"));
  QApplication::setApplicationVersion(QStringLiteral(STUDIO_VERSION_STRING));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/studio.svg")));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "TTT Studio: long-context analysis and test-time training of language models."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption open_option(
      QStringLiteral("open"),
      QStringLiteral("Open PATH: a text file, a task item (.json), or a folder as a code repository."),
      QStringLiteral("PATH"));
  const QCommandLineOption model_option(QStringLiteral("model"),
                                        QStringLiteral("Use the model in folder DIR."),
                                        QStringLiteral("DIR"));
  // Listed for --help; its value was taken out of argv before Qt (takeSessionArgument).
  const QCommandLineOption session_option(
      QStringLiteral("session"),
      QStringLiteral("Open the session FILE: its runs fill the comparison, dilution and document."),
      QStringLiteral("FILE"));
  const QCommandLineOption screenshot_option(
      QStringLiteral("screenshot"),
      QStringLiteral(
          "Save a PNG of the window to FILE once it is drawn (and PATH loaded), then exit."),
      QStringLiteral("FILE"));
  const QCommandLineOption inspect_option(
      QStringLiteral("inspect"),
      QStringLiteral("With --screenshot: inspect head LAYER:HEAD of the run the head grid shows "
                     "(its strip and query × key window) before the picture."),
      QStringLiteral("LAYER:HEAD"));
  const QCommandLineOption run_option(
      QStringLiteral("run"),
      QStringLiteral("Queue a run of METHOD (with parameters k=v,...) on the opened item once it "
                     "is loaded, as the Run button does; repeatable."),
      QStringLiteral("METHOD[:k=v,...]"));
  const QCommandLineOption quit_option(
      QStringLiteral("quit-when-done"),
      QStringLiteral("Quit once the --run runs finished: exit status 0 when every one completed, "
                     "1 otherwise."));
  const QCommandLineOption show_option(
      QStringLiteral("show"),
      QStringLiteral("Show and raise the panel TITLE (as the View menu names it, e.g. \"Fast "
                     "weights\"); with --screenshot the picture shows it. Repeatable."),
      QStringLiteral("TITLE"));
  parser.addOption(run_option);
  parser.addOption(quit_option);
  parser.addOption(show_option);
  parser.addOption(open_option);
  parser.addOption(model_option);
  parser.addOption(session_option);
  parser.addOption(screenshot_option);
  parser.addOption(inspect_option);
  parser.process(application);

  studio::initTorchRuntime();
  studio::plugins::registerBuiltinPlugins();

  // The command line and the kernel switches are checked before the window is built, so a
  // mistake is reported at once (a misspelt switch would run the default kernels unnoticed).
  if (const auto problems = studio::model::kernelSwitchProblems(); !problems.empty()) {
    for (const std::string& problem : problems) {
      std::fprintf(stderr, "studio: %s\n", problem.c_str());
    }
    return 1;
  }
  const bool screenshot = parser.isSet(screenshot_option);
  std::optional<std::pair<int, int>> inspect;
  if (screenshot && parser.isSet(inspect_option)) {
    inspect = parseInspect(parser.value(inspect_option));
    if (!inspect) {
      std::fprintf(stderr, "studio: --inspect %s: expected LAYER:HEAD, two numbers ≥ 0\n",
                   qPrintable(parser.value(inspect_option)));
      return 1;
    }
  }
  QStringList shown_panels;
  for (const QString& title : parser.values(show_option)) {
    QStringList titles;
    shown_panels << panelObjectName(title, titles);
    if (shown_panels.back().isEmpty()) {
      std::fprintf(stderr, "studio: --show %s: no such panel (the panels: %s)\n", qPrintable(title),
                   qPrintable(titles.join(QStringLiteral(", "))));
      return 2;
    }
  }
  const QString open_path = parser.value(open_option);
  if (screenshot && !open_path.isEmpty() && !QFileInfo::exists(open_path)) {
    std::fprintf(stderr, "studio: %s: no such file or folder\n", qPrintable(open_path));
    return 1;
  }
  std::vector<studio::views::ScriptedRun> scripted;
  for (const QString& text : parser.values(run_option)) {
    QString error;
    scripted.push_back(parseRun(text, error));
    if (!error.isEmpty()) {
      std::fprintf(stderr, "studio: %s\n", qPrintable(error));
      return 2;
    }
  }
  if (!scripted.empty() && open_path.isEmpty()) {
    std::fprintf(stderr, "studio: --run needs --open ITEM (the document the runs read)\n");
    return 2;
  }

  studio::views::MainWindowOptions options;
  if (screenshot) {
    // A screenshot shows the default layout and leaves the person's saved layout alone.
    options.restore_layout = false;
    options.save_layout = false;
    options.error_dialogs = false;
  }
  studio::views::MainWindow window(options);

  for (const QString& object_name : shown_panels) {
    QDockWidget* dock = window.dock(object_name);
    dock->show();
    dock->raise();
  }
  if (parser.isSet(model_option) && !window.setModelPath(parser.value(model_option))) {
    std::fprintf(stderr, "studio: %s: no such folder\n", qPrintable(parser.value(model_option)));
    if (screenshot) return 1;
  }

  // Every run started in the window is recorded: into --session FILE, or the day's session.
  if (!session_path.isEmpty()) {
    if (!window.openSession(session_path)) {
      std::fprintf(stderr, "studio: %s: cannot open the session: %s\n", qPrintable(session_path),
                   qPrintable(window.statusBar()->currentMessage()));
      if (screenshot || !scripted.empty()) return 1;
    }
  } else if (!screenshot && !window.openDefaultSession()) {
    std::fprintf(stderr, "studio: cannot open the day's session: %s\n",
                 qPrintable(window.statusBar()->currentMessage()));
  }
  const bool quit_when_done = parser.isSet(quit_option);
  if (!scripted.empty()) {
    QObject::connect(&window, &studio::views::MainWindow::documentLoaded, &window, [&] {
      // The session's earlier runs do not count towards the exit status.
      auto earlier = std::make_shared<std::set<std::int64_t>>();
      for (const auto* trace : window.traces()->all()) earlier->insert(trace->id);
      if (window.queueRuns(scripted) == 0) {
        std::fprintf(stderr, "studio: --run: %s\n", qPrintable(window.statusBar()->currentMessage()));
        if (quit_when_done) QApplication::exit(1);
        return;
      }
      if (!quit_when_done) return;
      QObject::connect(window.runController(), &studio::views::RunController::pendingChanged,
                       &window, [&window, earlier](int pending) {
                         if (pending > 0) return;
                         bool all_completed = true;
                         for (const auto* trace : window.traces()->all()) {
                           if (earlier->count(trace->id)) continue;
                           all_completed = all_completed &&
                               trace->result.status == studio::engine::RunStatus::Completed;
                         }
                         QApplication::exit(all_completed ? 0 : 1);
                       });
    });
    QObject::connect(&window, &studio::views::MainWindow::documentFailed, &window,
                     [quit_when_done](const QString& message) {
                       std::fprintf(stderr, "studio: %s\n", qPrintable(message));
                       if (quit_when_done) QApplication::exit(1);
                     });
  }

  std::unique_ptr<studio::app::ScreenshotRunner> runner;
  // Interactively a bad path is opened anyway, so the window itself says what is wrong with it.
  const bool opening = !open_path.isEmpty();
  if (screenshot) {
    runner = std::make_unique<studio::app::ScreenshotRunner>(
        &window, parser.value(screenshot_option), opening);
    if (inspect) runner->setInspect(*inspect);
  }
  window.show();
  if (opening) window.openPath(open_path);
  if (runner) runner->start();
  return application.exec();
}

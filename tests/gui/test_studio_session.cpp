// The studio records every run (DESIGN.md: "every run is stored"): a run started in the window
// lands in the session, event by event, and reopening shows it; `studio --run ...
// --quit-when-done` writes what `studio-cli run` writes for the same item; a studio killed during
// a run leaves an intact session whose run reads as interrupted; a session another process writes
// opens read-only; a session with damaged artifacts opens, its views naming the damaged field.

#include <catch2/catch.hpp>

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <thread>

#include "gui/gui_test_support.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"
#include "support/run_cli.h"
#include "support/session_damage.h"
#include "support/test_paths.h"
#include "support/tiny_model_folder.h"
#include "views/document_colouring.h"
#include "views/figure_view.h"
#include "views/main_window.h"
#include "views/routing_panel.h"
#include "views/run_controller.h"
#include "views/run_traces.h"
#include "views/studio_session.h"

extern char** environ;

using namespace studio;
using namespace studio::views;
using studio::testing::isolatedWindow;
using studio::testing::waitUntil;

namespace {

// A small needle item the runs read (the tiny model answers nonsense, quickly).
std::string writeItem(const QTemporaryDir& dir) {
  const std::string path = dir.filePath(QStringLiteral("item.json")).toStdString();
  std::string context;
  for (int i = 0; i < 20; ++i) context += "Line " + std::to_string(i) + " of filler text.\n";
  context += "The code is K7Q2.\n";
  const std::int64_t at = static_cast<std::int64_t>(context.find("K7Q2"));
  const nlohmann::json item = {{"task", "niah"},
                               {"context", context},
                               {"question", "What is the code?"},
                               {"answers", {"K7Q2"}},
                               {"scorer", "exact_match"},
                               {"targets", {{{"start", at}, {"end", at + 4}}}}};
  std::ofstream(path) << item.dump();
  return path;
}

std::string studioPath() {
  return std::string(studio::test_paths::kBinaryDir) + "/../app/studio";
}

// `runs` runs of `item` on `model` recorded by studio-cli into `session`.
void recordRuns(const std::string& model, const std::string& item, const std::string& session,
                int runs) {
  for (int run = 0; run < runs; ++run) {
    const auto cli = test::runCli("run --model " + model + " --item " + item +
                                  " --method in_context --set decoding=greedy --session " + session);
    INFO(cli.err);
    REQUIRE(cli.exit_code == 0);
  }
}

// Damages `session` with the statements `sql`; the number of rows the last one changed.
// Per kind, the number of events of the session's run `run_id`.
std::map<std::string, std::int64_t> eventCounts(const std::string& session, std::int64_t run_id) {
  sessions::OpenOptions read_only;
  read_only.access = sessions::OpenOptions::Access::ReadOnly;
  const sessions::SessionStore store(session, read_only);
  return sessions::SessionReader(store).eventCounts(run_id);
}

}  // namespace

TEST_CASE("a run started in the window is recorded live, and reopening shows it", "[gui]") {
  QTemporaryDir dir;
  const test::TinyModelFolder model("recorded");
  const std::string item = writeItem(dir);
  const QString session = dir.filePath(QStringLiteral("runs.sqlite"));
  std::int64_t run_id = 0;
  std::string answer;
  {
    MainWindow window(isolatedWindow());
    REQUIRE(window.openSession(session));
    CHECK(window.session()->writable());
    REQUIRE(window.setModelPath(QString::fromStdString(model.path())));
    QSignalSpy loaded(&window, &MainWindow::documentLoaded);
    window.openPath(QString::fromStdString(item));
    REQUIRE(waitUntil([&] { return loaded.count() == 1; }));
    REQUIRE(window.queueRuns({ScriptedRun{"in_context", {{"decoding", "greedy"}}}}) == 1);
    // Queued as a row at once: its id is the trace's.
    const auto traces = window.traces()->all();
    REQUIRE(traces.size() == 1);
    run_id = traces[0]->id;
    REQUIRE(waitUntil([&] { return window.runController()->pending() == 0; }, 60000));
    const RunTrace* trace = window.traces()->find(run_id);
    REQUIRE(trace);
    REQUIRE(trace->result.status == engine::RunStatus::Completed);
    answer = trace->result.answer;

    sessions::OpenOptions read_only;
    read_only.access = sessions::OpenOptions::Access::ReadOnly;
    const sessions::SessionStore store(session.toStdString(), read_only);
    const sessions::SessionReader reader(store);
    const auto runs = reader.listRuns();
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].id == run_id);
    CHECK(runs[0].status == engine::RunStatus::Completed);
    CHECK(runs[0].answer == answer);
    const auto counts = reader.eventCounts(run_id);
    CHECK(counts.at("token") == static_cast<std::int64_t>(trace->events.all<engine::TokenEvent>().size()));
    CHECK(counts.at("probe") == static_cast<std::int64_t>(trace->probes().size()));
    CHECK(counts.at("probe") >= 1);
  }
  // Another window on the same file shows the run as it was seen live.
  MainWindow reopened(isolatedWindow());
  REQUIRE(reopened.openSession(session));
  const RunTrace* trace = reopened.traces()->find(run_id);
  REQUIRE(trace);
  CHECK(trace->result.answer == answer);
  CHECK(trace->probeBefore() != nullptr);
  CHECK(trace->artifacts("answer_attention").size() == 1);
}

TEST_CASE("a session another process writes opens read-only and takes no runs", "[gui]") {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("locked.sqlite"));
  // This process holds the writer lock through a store of its own; the window is "another" one
  // only in the sense the lock knows: a second store in the same process is refused the lock too.
  sessions::SessionStore writer(path.toStdString());
  REQUIRE_FALSE(writer.readOnly());
  MainWindow window(isolatedWindow());
  REQUIRE(window.openSession(path));
  CHECK_FALSE(window.session()->writable());
  CHECK(window.session()->readOnlyReason().contains(QStringLiteral("read-only")));
  const test::TinyModelFolder model("locked");
  REQUIRE(window.setModelPath(QString::fromStdString(model.path())));
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openPath(QString::fromStdString(writeItem(dir)));
  REQUIRE(waitUntil([&] { return loaded.count() == 1; }));
  CHECK(window.queueRuns({ScriptedRun{"in_context", {}}}) == 0);
  CHECK(window.statusBar()->currentMessage().contains(QStringLiteral("read-only")));
}

TEST_CASE("studio --run ... --quit-when-done records what studio-cli run records", "[gui]") {
  QTemporaryDir dir;
  const test::TinyModelFolder model("scripted");
  const std::string item = writeItem(dir);
  const std::string window_session = dir.filePath(QStringLiteral("window.sqlite")).toStdString();
  const std::string cli_session = dir.filePath(QStringLiteral("cli.sqlite")).toStdString();
  const auto scripted = test::runCommand(
      "QT_QPA_PLATFORM=offscreen " + studioPath() + " --model " + model.path() + " --open " +
      item + " --session " + window_session + " --run in_context:decoding=greedy --quit-when-done");
  INFO(scripted.err);
  REQUIRE(scripted.exit_code == 0);
  const auto cli = test::runCli("run --model " + model.path() + " --item " + item +
                                " --method in_context --set decoding=greedy --session " +
                                cli_session);
  INFO(cli.err);
  REQUIRE(cli.exit_code == 0);

  sessions::OpenOptions read_only;
  read_only.access = sessions::OpenOptions::Access::ReadOnly;
  const sessions::SessionStore a(window_session, read_only), b(cli_session, read_only);
  const sessions::SessionReader window_reader(a), cli_reader(b);
  REQUIRE(window_reader.listRuns().size() == 1);
  REQUIRE(cli_reader.listRuns().size() == 1);
  const sessions::RunSummary w = window_reader.listRuns()[0];
  const sessions::RunSummary c = cli_reader.listRuns()[0];
  CHECK(w.method == c.method);
  CHECK(w.status == c.status);
  CHECK(w.answer == c.answer);
  CHECK(w.correct == c.correct);
  CHECK(w.score == c.score);
  const engine::RunResult wr = window_reader.loadResult(w.id), cr = cli_reader.loadResult(c.id);
  CHECK(wr.target_mass == cr.target_mass);
  CHECK(wr.flops.prefill == cr.flops.prefill);
  CHECK(wr.prompt_tokens == cr.prompt_tokens);
  CHECK(window_reader.loadSpec(w.id).question == cli_reader.loadSpec(c.id).question);
  CHECK(window_reader.loadSpec(w.id).params == cli_reader.loadSpec(c.id).params);
  CHECK(window_reader.eventCounts(w.id) == cli_reader.eventCounts(c.id));
}

TEST_CASE("a studio killed during a qTTT run leaves an intact session, the run interrupted",
          "[gui]") {
  QTemporaryDir dir;
  const test::TinyModelFolder model("killed");
  const std::string item = writeItem(dir);
  const std::string session = dir.filePath(QStringLiteral("killed.sqlite")).toStdString();
  const std::string studio = studioPath();
  std::vector<std::string> args = {studio,   "--model", model.path(), "--open",
                                   item,     "--session", session,
                                   "--run",  "qttt:steps=100000,span=8"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = {"QT_QPA_PLATFORM=offscreen"};
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, studio.c_str(), nullptr, nullptr, argv.data(), envp.data()) == 0);

  // Wait until a few qTTT steps are committed, then kill it without warning.
  std::int64_t steps_before_kill = 0;
  for (int i = 0; i < 1200 && steps_before_kill < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::string count = [&] {
      try {
        return std::to_string(eventCounts(session, 1).at("step_metric"));
      } catch (const std::exception&) {
        return std::string("0");
      }
    }();
    steps_before_kill = std::stoll(count);
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(steps_before_kill >= 3);

  // The next read-write open marks the run interrupted; the file is intact and keeps the steps.
  sessions::OpenOptions full;
  full.check = sessions::OpenOptions::Check::Full;  // PRAGMA integrity_check
  const sessions::SessionStore reopened(session, full);
  CHECK(reopened.interruptedAtOpen() == 1);
  const sessions::SessionReader reader(reopened);
  REQUIRE(reader.listRuns().size() == 1);
  CHECK(reader.listRuns()[0].status == engine::RunStatus::Interrupted);
  CHECK(reader.eventCounts(1).at("step_metric") >= steps_before_kill);
}

TEST_CASE("a session with damaged artifacts opens: each view names the damaged field, the rest shows",
          "[gui]") {
  QTemporaryDir dir;
  const test::TinyModelFolder model(test::TinyModelFolder::Ttt::SrTtt, "damaged");
  const std::string item = writeItem(dir);
  const std::string session = dir.filePath(QStringLiteral("damaged.sqlite")).toStdString();
  recordRuns(model.path(), item, session, 1);
  // A wrongly typed field in each artifact the views read: these used to abort the studio.
  CHECK(test::damageSession(session,
                            "UPDATE artifacts SET meta_json = json_set(meta_json, '$.layer', 'x') "
                            "WHERE name = 'cache_read';"
                            "UPDATE artifacts SET meta_json = json_set(meta_json, '$.phase', 3) "
                            "WHERE name = 'answer_attention';") > 0);

  MainWindow window(isolatedWindow());
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openPath(QString::fromStdString(item));
  REQUIRE(waitUntil([&] { return loaded.count() == 1; }));
  REQUIRE(window.openSession(QString::fromStdString(session)));
  const auto traces = window.traces()->all();
  REQUIRE(traces.size() == 1);
  const std::int64_t id = traces[0]->id;

  auto* routing = window.findChild<RoutingPanel*>();
  REQUIRE(routing);
  REQUIRE(waitUntil([&] { return routing->shownRun() == id; }));
  CHECK(routing->cacheRead()->text().contains(
      QStringLiteral("run %1: cache_read.meta.layer: must be an integer").arg(id)));
  CHECK(routing->chart()->figure().findSeries("L_t"));  // the routing events are intact

  DocumentColouring& colouring = *window.documentColouring();
  REQUIRE(colouring.selectRun(id));
  CHECK(colouring.noteLabel()->text().contains(
      QStringLiteral("run %1: answer_attention.meta.phase: must be a string").arg(id)));
  CHECK(colouring.noteLabel()->toolTip() == colouring.noteLabel()->text());
  CHECK_FALSE(colouring.quantityBox()->isEnabled());
}

TEST_CASE("a session with one unreadable run opens with the others, the damaged one named", "[gui]") {
  QTemporaryDir dir;
  const test::TinyModelFolder model("one-damaged");
  const std::string item = writeItem(dir);
  const std::string session = dir.filePath(QStringLiteral("two.sqlite")).toStdString();
  recordRuns(model.path(), item, session, 2);
  test::makeRunUnreadable(session, 1);

  MainWindow window(isolatedWindow());
  REQUIRE(window.openSession(QString::fromStdString(session)));
  const auto traces = window.traces()->all();
  REQUIRE(traces.size() == 1);  // it used to show none
  CHECK(traces[0]->id == 2);
  const QString message = window.statusBar()->currentMessage();
  CHECK(message.contains(QStringLiteral("1 of 2 runs shown")));
  CHECK(message.contains(QStringLiteral("runs[1].spec_json")));
}

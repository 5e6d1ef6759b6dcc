// The studio executable's own arguments, which Qt must not take: --session FILE reaches the window
// (Qt's X11 session management consumes -session/--session inside QApplication's constructor);
// --inspect LAYER:HEAD opens a head's inspector, query × key window included, before a screenshot.

#include <catch2/catch.hpp>

#include <QImage>
#include <QString>

#include <fstream>
#include <iterator>
#include <string>

#include "support/run_cli.h"
#include "support/temp_dir.h"
#include "support/tiny_model_folder.h"
#include "support/test_paths.h"

using studio::test::runCli;
using studio::test::runCommand;

namespace {

std::string studioPath() {
  return "QT_QPA_PLATFORM=offscreen " + std::string(studio::test_paths::kBinaryDir) + "/../app/studio";
}

}  // namespace

TEST_CASE("studio --session reaches the window, in both spellings", "[gui]") {
  for (const std::string option : {"--session /nonexistent/runs.sqlite",
                                   "--session=/nonexistent/runs.sqlite"}) {
    INFO(option);
    const auto run = runCommand("QT_QPA_PLATFORM=offscreen " +
                                std::string(studio::test_paths::kBinaryDir) + "/../app/studio " + option +
                                " --screenshot /nonexistent/shot.png");
    INFO(run.err);
    CHECK(run.exit_code == 1);
    CHECK(run.err.find("/nonexistent/runs.sqlite: cannot open the session") != std::string::npos);
  }
}

TEST_CASE("studio --inspect shows a head's query × key window in the screenshot", "[gui]") {
  const studio::test::TinyModelFolder model("inspect");
  const studio::test::TempDir dir("inspect");
  const std::string session = (dir.path() / "runs.sqlite").string();
  const std::string item = std::string(studio::test_paths::kSourceDir) + "/resources/documents/demo-tx-log.json";
  const auto run = runCli("run --model " + model.path() + " --item " + item +
                          " --method qttt --set steps=2 --set span=16 --max-tokens 2 --session " +
                          session);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);

  const std::string shot = (dir.path() / "shot.png").string();
  const auto inspected = runCommand(studioPath() + " --session " + session + " --open " + item +
                                    " --inspect 1:2 --screenshot " + shot);
  INFO(inspected.err);
  CHECK(inspected.exit_code == 0);
  CHECK_FALSE(QImage(QString::fromStdString(shot)).isNull());

  // A layer the model does not have: the replay says so, and no picture is taken.
  const auto bad_layer = runCommand(studioPath() + " --session " + session + " --open " + item +
                                    " --inspect 7:0 --screenshot " + shot + ".bad");
  CHECK(bad_layer.exit_code == 1);
  CHECK(bad_layer.err.find("No query × key window: layer: 7") != std::string::npos);

  // The same window headless, as a figure: the qTTT run's difference, and errors that say what.
  REQUIRE(runCli("run --model " + model.path() + " --item " + item +
                 " --method in_context --max-tokens 2 --session " + session)
              .exit_code == 0);
  const std::string svg = (dir.path() / "window.svg").string();
  const std::string figure = "export --session " + session + " --figure attention_window ";
  const auto exported = runCli(figure + "--run 1 --layer 1 --head 2 --keys 0:600 --phase difference "
                                        "--format svg --out " + svg);
  INFO(exported.err);
  CHECK(exported.exit_code == 0);
  CHECK(exported.out.find("after qTTT − after prefill") != std::string::npos);
  std::ifstream written(svg);
  const std::string text((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  CHECK(text.find("<svg") != std::string::npos);
  struct Bad {
    std::string args, says;
  };
  for (const Bad& bad : {Bad{"--run 2 --phase difference", "difference needs a qTTT run"},
                         Bad{"--run 2 --phase qttt", "qttt is not a phase of #2 in_context"},
                         Bad{"--run 1 --keys 5:3", "--keys"},
                         Bad{"--run 1 --keys 900000:900010", "covers none of the"},
                         Bad{"--run 1 --layer 9", "layer: 9"}}) {
    INFO(bad.args);
    const auto refused = runCli(figure + bad.args + " --out " + svg + ".bad");
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find(bad.says) != std::string::npos);
  }

  // A spelling that is not LAYER:HEAD is refused before the window is built.
  for (const std::string spelling : {"1", "1:x", "-1:0", "1:2:3"}) {
    INFO(spelling);
    const auto bad = runCommand(studioPath() + " --inspect " + spelling + " --screenshot " + shot);
    CHECK(bad.exit_code == 1);
    CHECK(bad.err.find("expected LAYER:HEAD") != std::string::npos);
  }
}

TEST_CASE("studio --show raises a panel by its title and refuses an unknown one", "[gui]") {
  const studio::test::TempDir dir("show-panel");
  const std::string shot = (dir.path() / "shot.png").string();
  const auto shown = runCommand(studioPath() + " --show 'fast weights' --screenshot " + shot);
  INFO(shown.err);
  CHECK(shown.exit_code == 0);
  CHECK(QImage(QString::fromStdString(shot)).width() > 0);
  const auto unknown = runCommand(studioPath() + " --show Nonesuch --screenshot " + shot);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("--show Nonesuch: no such panel") != std::string::npos);
  CHECK(unknown.err.find("Fast weights") != std::string::npos);
}

TEST_CASE("studio refuses to start with a kernel switch set to a value it does not take", "[gui]") {
  const auto run =
      runCommand("STUDIO_SPAN_BACKWARD=dq " + studioPath() + " --screenshot /nonexistent/shot.png");
  CHECK(run.exit_code == 1);
  CHECK(run.err.find("studio: STUDIO_SPAN_BACKWARD=dq: not a value this kernel switch takes "
                     "(it takes kernel") != std::string::npos);
}

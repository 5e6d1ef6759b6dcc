// The studio executable's own arguments, which Qt must not take: --session FILE reaches the window
// (Qt's X11 session management consumes -session/--session inside QApplication's constructor).

#include <catch2/catch.hpp>

#include <string>

#include "support/run_cli.h"

using studio::test::runCommand;

TEST_CASE("studio --session reaches the window, in both spellings", "[gui]") {
  for (const std::string option : {"--session /nonexistent/runs.sqlite",
                                   "--session=/nonexistent/runs.sqlite"}) {
    INFO(option);
    const auto run = runCommand("QT_QPA_PLATFORM=offscreen " +
                                std::string(STUDIO_TEST_BINARY_DIR) + "/../app/studio " + option +
                                " --screenshot /nonexistent/shot.png");
    INFO(run.err);
    CHECK(run.exit_code == 1);
    CHECK(run.err.find("/nonexistent/runs.sqlite: cannot open the session") != std::string::npos);
  }
}

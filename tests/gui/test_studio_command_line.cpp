// The studio executable's own arguments, which Qt must not take: --session FILE reaches the window
// (Qt's X11 session management consumes -session/--session inside QApplication's constructor).

#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

struct StudioRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

StudioRun runStudio(const std::string& arguments) {
  const std::string command = "QT_QPA_PLATFORM=offscreen " + std::string(STUDIO_TEST_BINARY_DIR) +
                              "/../app/studio " + arguments + " 2>&1";
  StudioRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.output.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace

TEST_CASE("studio --session reaches the window, in both spellings", "[gui]") {
  for (const std::string option : {"--session /nonexistent/runs.sqlite",
                                   "--session=/nonexistent/runs.sqlite"}) {
    INFO(option);
    const StudioRun run = runStudio(option + " --screenshot /nonexistent/shot.png");
    INFO(run.output);
    CHECK(run.exit_code == 1);
    CHECK(run.output.find("/nonexistent/runs.sqlite: cannot open the session") !=
          std::string::npos);
  }
}

#pragma once
// Runs a program (no shell) and captures what it prints: how studio-cli talks to sbatch, squeue
// and sacct.

#include <string>
#include <vector>

namespace studio::cli {

struct CapturedProcess {
  bool started = false;  // false: the program could not be run (not installed, say)
  int exit_code = -1;    // the exit status; -1 when it died of a signal or did not start
  std::string out;
  std::string err;  // or, when it did not start, why
};

// `argv[0]` is looked up on PATH. Waits for the program to end.
CapturedProcess runCapturing(const std::vector<std::string>& argv);

}  // namespace studio::cli

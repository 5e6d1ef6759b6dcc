#pragma once
// libtorch's profiler (Kineto) over a scope of a bench command, written as a Chrome trace JSON
// (chrome://tracing, Perfetto): every aten op on the host and, on CUDA, every kernel, copy and
// memset with its device time (through CUPTI). `scripts/trace-summary FILE` sums the device time
// per kernel. Timings printed while a trace is recorded carry the profiler's overhead on the host.

#include <string>

namespace studio::cli {

class ProfilerTrace {
 public:
  // Starts recording (host ops, and device activity when `cuda`); an empty path records nothing.
  ProfilerTrace(std::string path, bool cuda);
  // Stops; writes nothing unless finish() was called (an exception left the scope).
  ~ProfilerTrace();
  ProfilerTrace(const ProfilerTrace&) = delete;
  ProfilerTrace& operator=(const ProfilerTrace&) = delete;

  // Stops and writes the trace; an Io error names the file when it cannot be written.
  void finish();

 private:
  std::string m_path;
  bool m_running = false;
};

}  // namespace studio::cli

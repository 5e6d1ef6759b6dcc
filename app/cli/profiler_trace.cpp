#include "app/cli/profiler_trace.h"

#include <torch/csrc/autograd/profiler_kineto.h>

#include <filesystem>
#include <set>

#include "core/common/error.h"

namespace studio::cli {

namespace {

using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

// Records nothing and writes `path`, so that a libtorch without Kineto (Debian's 1.13) or an
// unwritable path is refused before any timed work, not after it.
void checkTraceWritable(const std::string& path, const std::set<ActivityType>& activities) {
  const ProfilerConfig config(ProfilerState::KINETO);
  try {
    torch::autograd::profiler::prepareProfiler(config, activities);
    torch::autograd::profiler::enableProfiler(config, activities);
    torch::autograd::profiler::disableProfiler()->save(path);
  } catch (const c10::Error& error) {
    throwError(ErrorKind::Unsupported, path, "--trace",
               "libtorch's profiler cannot write a trace here (" +
                   std::string(error.what_without_backtrace()) +
                   "); Debian's libtorch is built without Kineto, scripts/build-cuda's has it");
  }
  if (!std::filesystem::exists(path)) {
    throwError(ErrorKind::Io, path, "--trace", "libtorch's profiler wrote no trace there");
  }
}

}  // namespace

ProfilerTrace::ProfilerTrace(std::string path, bool cuda) : m_path(std::move(path)) {
  if (m_path.empty()) return;
  const std::filesystem::path parent = std::filesystem::path(m_path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent)) {
    throwError(ErrorKind::Io, m_path, "--trace", "its folder does not exist");
  }
  std::set<ActivityType> activities{ActivityType::CPU};
  if (cuda) activities.insert(ActivityType::CUDA);
  checkTraceWritable(m_path, activities);
  const ProfilerConfig config(ProfilerState::KINETO);
  torch::autograd::profiler::prepareProfiler(config, activities);
  torch::autograd::profiler::enableProfiler(config, activities);
  m_running = true;
}

ProfilerTrace::~ProfilerTrace() {
  if (!m_running) return;
  try {
    torch::autograd::profiler::disableProfiler();
  } catch (...) {  // a destructor during unwinding: the trace is dropped, the error is the caller's
  }
}

void ProfilerTrace::finish() {
  if (!m_running) return;
  m_running = false;
  torch::autograd::profiler::disableProfiler()->save(m_path);
}

}  // namespace studio::cli

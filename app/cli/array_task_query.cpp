#include "app/cli/array_task_query.h"

#include <set>

#include "app/cli/process_capture.h"
#include "core/cluster/array_task_states.h"

namespace studio::cli {

namespace {

std::string firstMessageLine(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? "no message" : line;
}

}  // namespace

ArrayTaskQuery queryArrayTasks(const cluster::SweepArrayManifest& manifest) {
  ArrayTaskQuery query;
  std::set<std::string> noted;
  const auto note = [&](const std::string& text) {
    if (noted.insert(text).second) query.notes.push_back(text);
  };
  for (const cluster::ArraySubmission& submission : manifest.submissions) {
    const std::string& job = submission.job_id;
    // sacct remembers finished tasks (where accounting is stored); squeue knows the live ones.
    const CapturedProcess sacct =
        runCapturing({"sacct", "-n", "-X", "-P", "-j", job, "-o", "JobID,State"});
    if (!sacct.started) {
      note("sacct cannot be run: " + sacct.err);
    } else if (sacct.exit_code != 0) {
      note("sacct: " + firstMessageLine(sacct.err));
    } else {
      for (const auto& [task, state] : cluster::parseArrayTaskStates(sacct.out, job)) {
        query.states[task] = state;
      }
    }
    const CapturedProcess squeue =
        runCapturing({"squeue", "-h", "-r", "--states=all", "-j", job, "-o", "%i|%T"});
    if (!squeue.started) {
      note("squeue cannot be run: " + squeue.err);
    } else if (squeue.exit_code == 0) {
      for (const auto& [task, state] : cluster::parseArrayTaskStates(squeue.out, job)) {
        query.states[task] = state;
      }
    } else if (squeue.err.find("Invalid job id") == std::string::npos) {
      // "Invalid job id" is a job the controller has forgotten (sacct spoke for it); anything
      // else is worth saying.
      note("squeue: " + firstMessageLine(squeue.err));
    }
  }
  return query;
}

}  // namespace studio::cli

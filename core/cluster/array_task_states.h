#pragma once
// The Slurm state of each task of an array job, read from what squeue and sacct print.

#include <cstddef>
#include <map>
#include <string>

namespace studio::cluster {

// Lines "JOBID_TASK|STATE" as printed by `squeue -h -r --states=all -j JOBID -o '%i|%T'` and
// `sacct -n -X -P -j JOBID -o JobID,State`. TASK may be a bracketed list of tasks not started yet
// ("[3-5,8%2]"); a state may carry words after it ("CANCELLED by 0"), which are dropped. Lines of
// other jobs, of job steps and blank lines are skipped. Task → state ("RUNNING", "TIMEOUT", ...).
std::map<std::size_t, std::string> parseArrayTaskStates(const std::string& text,
                                                        const std::string& job_id);

// Whether Slurm still has the task to run or running (PENDING, RUNNING, CONFIGURING, ...).
bool arrayTaskActive(const std::string& state);

}  // namespace studio::cluster

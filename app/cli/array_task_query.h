#pragma once
// Asks Slurm (squeue, then sacct for tasks squeue has forgotten) about the tasks of a sweep
// array's submissions.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/cluster/sweep_array_manifest.h"

namespace studio::cli {

struct ArrayTaskQuery {
  // Shard → the state of its task in the latest submission that ran it.
  std::map<std::size_t, std::string> states;
  // What could not be asked, for the person reading ("sacct: Slurm accounting storage is
  // disabled").
  std::vector<std::string> notes;
};

ArrayTaskQuery queryArrayTasks(const cluster::SweepArrayManifest& manifest);

}  // namespace studio::cli

#pragma once
// Reading a sweep configuration file (JSON): by `sweep`, by its Slurm submission and by
// `sweep status`, which reads the copy in the array's output folder.

#include <nlohmann/json.hpp>

#include <string>

#include "core/engine/sweep_plan.h"

namespace studio::cli {

// The file's JSON; throws studio::Error (Io, Format) naming the file.
nlohmann::json readSweepConfigJson(const std::string& path);

// The configuration in `json`, read from `path`; throws studio::Error (Argument) naming the file
// and the field.
engine::SweepConfig sweepConfigFrom(const nlohmann::json& json, const std::string& path);

}  // namespace studio::cli

#pragma once
// Slurm's time limits (`sbatch --time`), read and written in the forms Slurm accepts.

#include <cstdint>
#include <string>

namespace studio::cluster {

// "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM" or "D-HH:MM:SS" → seconds (> 0). Throws
// studio::Error (Argument) naming `field` for anything else.
std::int64_t parseSlurmTimeLimit(const std::string& text, const std::string& field);

// Seconds → "HH:MM:SS", or "D-HH:MM:SS" from one day on.
std::string formatSlurmTimeLimit(std::int64_t seconds);

}  // namespace studio::cluster

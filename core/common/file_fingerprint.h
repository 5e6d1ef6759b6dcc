#pragma once
// A fingerprint of files' contents: XXH3 128-bit over each file's size and bytes in turn, as 32
// lowercase hex digits. Identifies a model folder's weights (a cached leak-check verdict holds
// for exactly these bytes).

#include <string>
#include <vector>

namespace studio {

// Throws studio::Error (Io) naming a file that cannot be read.
std::string filesFingerprint(const std::vector<std::string>& paths);

// The same over byte strings held in memory: each one's size, then its bytes.
std::string bytesFingerprint(const std::vector<std::string>& parts);

}  // namespace studio

#pragma once
// Loads a text file as a Document. Any bytes are accepted: invalid UTF-8 becomes U+FFFD (counted
// in the stats), an empty file an empty document.

#include <cstdint>
#include <string>

#include "core/document/document.h"
#include "core/document/load_progress.h"

namespace studio::document {

struct TextLoadOptions {
  std::uint64_t max_bytes = std::uint64_t{2} << 30;  // larger files are refused
  LoadProgress progress;                             // optional
};

// Throws studio::Error naming `path`: Io when it does not exist, is a folder or another
// non-regular file, or cannot be read; Unsupported when it is larger than options.max_bytes;
// Cancelled when options.progress asked to stop.
Document loadTextFile(const std::string& path, const TextLoadOptions& options = {});

}  // namespace studio::document

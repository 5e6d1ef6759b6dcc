#pragma once
// Opens a folder as a code repository: one Document in the format of repository_format.h, files
// in byte-wise sorted order of their relative paths (as `git ls-files` lists them).
//
// Skipped and counted in the stats: folders .git/, build*/, node_modules/, __pycache__/ and
// every hidden folder (not descended into); whatever the root .gitignore ignores (git_ignore.h);
// symbolic links (never followed, so a link cannot loop or leave the folder); binary files (a NUL
// byte, or more than 10% invalid UTF-8 or control bytes, in the first 8 KiB); files over the
// per-file limit. Invalid UTF-8 in the files kept becomes U+FFFD.

#include <cstdint>
#include <string>

#include "core/document/document.h"
#include "core/document/load_progress.h"

namespace studio::document {

struct RepositoryOptions {
  std::uint64_t max_total_bytes = std::uint64_t{64} << 20;  // of the files kept, before formatting
  std::uint64_t max_file_bytes = std::uint64_t{4} << 20;    // larger files are skipped
  std::size_t max_files = 50000;                            // files considered, before reading
  bool use_gitignore = true;
  LoadProgress progress;  // bytes read of the candidates' total; optional
};

// Throws studio::Error naming the folder (or the file): Io when it does not exist, is not a
// folder, or a file in it cannot be read; Unsupported when a limit is exceeded (the message names
// the limit); Cancelled when options.progress asked to stop.
Document loadRepository(const std::string& folder, const RepositoryOptions& options = {});

}  // namespace studio::document

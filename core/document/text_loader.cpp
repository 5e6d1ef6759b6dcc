#include "core/document/text_loader.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/common/error.h"
#include "core/common/utf8.h"

namespace studio::document {

namespace {

namespace fs = std::filesystem;

// Large enough that the read is I/O bound, small enough that progress moves and a cancelled load
// stops within a few milliseconds.
constexpr std::size_t kChunkBytes = std::size_t{4} << 20;

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

}  // namespace

Document loadTextFile(const std::string& path, const TextLoadOptions& options) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    throwError(ErrorKind::Io, path, "", "no such file");
  }
  if (fs::is_directory(status)) {
    throwError(ErrorKind::Io, path, "",
               "is a folder, not a file (open it as a code repository instead)");
  }
  if (!fs::is_regular_file(status)) {
    throwError(ErrorKind::Io, path, "", "is not a regular file");
  }
  const std::uint64_t expected = fs::file_size(path, ec);
  if (!ec && expected > options.max_bytes) {
    throwError(ErrorKind::Unsupported, path, "",
               "is " + std::to_string(expected) + " bytes, more than the limit of " +
                   std::to_string(options.max_bytes) + " bytes");
  }

  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    throwError(ErrorKind::Io, path, "", std::string("cannot be opened: ") + std::strerror(errno));
  }

  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(ec ? 0 : expected));
  std::unique_ptr<char[]> chunk(new char[kChunkBytes]);
  for (;;) {
    const std::size_t got = std::fread(chunk.get(), 1, kChunkBytes, file.get());
    bytes.append(chunk.get(), got);
    if (bytes.size() > options.max_bytes) {
      throwError(ErrorKind::Unsupported, path, "",
                 "grew past the limit of " + std::to_string(options.max_bytes) +
                     " bytes while being read");
    }
    if (options.progress &&
        !options.progress(bytes.size(), std::max<std::uint64_t>(expected, bytes.size()))) {
      throwError(ErrorKind::Cancelled, path, "", "loading was cancelled");
    }
    if (got < kChunkBytes) {
      if (std::ferror(file.get())) {
        throwError(ErrorKind::Io, path, "", std::string("read failed: ") + std::strerror(errno));
      }
      break;
    }
  }

  DocumentStats stats;
  stats.files_included = 1;
  // Valid UTF-8 (the common case) is kept as it is, without a second copy.
  if (!utf8::isValid(bytes)) {
    bytes = utf8::sanitize(bytes, &stats.invalid_utf8_replaced);
  }
  return Document(std::move(bytes), path, DocumentKind::Text, stats);
}

}  // namespace studio::document

#include "core/document/repository_loader.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/document/git_ignore.h"
#include "core/document/repository_format.h"

namespace studio::document {

namespace {

namespace fs = std::filesystem;

// git looks at the first 8000 bytes for a NUL; we look a little further for broken encodings.
constexpr std::size_t kSniffBytes = 8192;

struct Candidate {
  std::string relative;  // '/' separated, as the filesystem spells it (sort key)
  fs::path absolute;
  std::uint64_t size = 0;
};

struct Walk {
  const RepositoryOptions& options;
  const std::string& folder;
  GitIgnore ignore;
  DocumentStats stats;
  std::vector<Candidate> candidates;
};

bool isBuiltinIgnoredFolder(std::string_view name) {
  return name.front() == '.' || name == "node_modules" || name == "__pycache__" ||
         name.substr(0, 5) == "build";
}

void walkFolder(Walk& walk, const fs::path& dir, const std::string& relative_dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    throwError(ErrorKind::Io, dir.string(), "", "cannot be listed: " + ec.message());
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throwError(ErrorKind::Io, dir.string(), "", "cannot be listed: " + ec.message());
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    const std::string relative = relative_dir.empty() ? name : relative_dir + "/" + name;
    const fs::file_status status = entry.symlink_status(ec);
    if (ec || fs::is_symlink(status)) {
      ++walk.stats.ignored_files_skipped;
      continue;
    }
    if (fs::is_directory(status)) {
      if (isBuiltinIgnoredFolder(name) || walk.ignore.ignored(relative, true)) {
        ++walk.stats.ignored_folders_skipped;
        continue;
      }
      walkFolder(walk, entry.path(), relative);
      continue;
    }
    if (!fs::is_regular_file(status) || walk.ignore.ignored(relative, false)) {
      ++walk.stats.ignored_files_skipped;
      continue;
    }
    if (walk.candidates.size() >= walk.options.max_files) {
      throwError(ErrorKind::Unsupported, walk.folder, "",
                 "has more than " + std::to_string(walk.options.max_files) +
                     " files that are not ignored (the limit); open a sub-folder or extend "
                     ".gitignore");
    }
    const std::uint64_t size = entry.file_size(ec);
    walk.candidates.push_back({relative, entry.path(), ec ? 0 : size});
  }
}

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

// Reads at most `limit` + 1 bytes, so that a file which grew past the limit is noticed.
std::string readFile(const fs::path& path, std::uint64_t limit) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    throwError(ErrorKind::Io, path.string(), "",
               std::string("cannot be opened: ") + std::strerror(errno));
  }
  std::string bytes;
  char buffer[1 << 16];
  while (bytes.size() <= limit) {
    const std::size_t got = std::fread(buffer, 1, sizeof buffer, file.get());
    bytes.append(buffer, got);
    if (got < sizeof buffer) {
      if (std::ferror(file.get())) {
        throwError(ErrorKind::Io, path.string(), "",
                   std::string("read failed: ") + std::strerror(errno));
      }
      break;
    }
  }
  return bytes;
}

bool looksBinary(std::string_view bytes) {
  const std::string_view head = bytes.substr(0, kSniffBytes);
  if (head.find('\0') != std::string_view::npos) return true;
  if (head.empty()) return false;
  std::size_t replaced = 0;
  utf8::sanitize(head, &replaced);
  std::size_t controls = 0;
  for (char c : head) {
    const auto byte = static_cast<unsigned char>(c);
    // Tabs, newlines, form feeds, backspaces and ANSI escapes appear in real text files.
    const bool text_control = byte == '\t' || byte == '\n' || byte == '\r' || byte == '\f' ||
                              byte == '\v' || byte == '\b' || byte == 0x1b;
    if ((byte < 0x20 && !text_control) || byte == 0x7f) ++controls;
  }
  return (replaced + controls) * 10 > head.size();
}

std::string displayPath(const std::string& relative) {
  return utf8::isValid(relative) ? relative : utf8::sanitize(relative);
}

}  // namespace

Document loadRepository(const std::string& folder, const RepositoryOptions& options) {
  std::error_code ec;
  const fs::file_status status = fs::status(folder, ec);
  if (ec || !fs::exists(status)) throwError(ErrorKind::Io, folder, "", "no such folder");
  if (!fs::is_directory(status)) {
    throwError(ErrorKind::Io, folder, "",
               "is a file, not a folder (open it as a document instead)");
  }

  Walk walk{options, folder, {}, {}, {}};
  const fs::path root(folder);
  if (options.use_gitignore) {
    const fs::path gitignore = root / ".gitignore";
    if (fs::is_regular_file(gitignore, ec)) {
      walk.ignore = GitIgnore::parse(readFile(gitignore, options.max_file_bytes));
    }
  }
  walkFolder(walk, root, "");
  std::sort(walk.candidates.begin(), walk.candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.relative < b.relative; });

  std::uint64_t total = 0;
  for (const Candidate& candidate : walk.candidates) {
    total += std::min(candidate.size, options.max_file_bytes);
  }

  DocumentStats stats = walk.stats;
  std::vector<RepositoryFile> files;
  std::string text;
  std::size_t lines_so_far = 0;
  std::uint64_t kept_bytes = 0;
  std::uint64_t done = 0;
  for (const Candidate& candidate : walk.candidates) {
    if (options.progress && !options.progress(done, total)) {
      throwError(ErrorKind::Cancelled, folder, "", "loading was cancelled");
    }
    if (candidate.size > options.max_file_bytes) {
      ++stats.large_files_skipped;
      continue;
    }
    std::string bytes = readFile(candidate.absolute, options.max_file_bytes);
    done += std::min<std::uint64_t>(bytes.size(), options.max_file_bytes);
    if (bytes.size() > options.max_file_bytes) {
      ++stats.large_files_skipped;
      continue;
    }
    if (looksBinary(bytes)) {
      ++stats.binary_files_skipped;
      continue;
    }
    const std::uint64_t source_bytes = bytes.size();
    kept_bytes += source_bytes;
    if (kept_bytes > options.max_total_bytes) {
      throwError(ErrorKind::Unsupported, folder, "",
                 "its text files add up to more than the limit of " +
                     std::to_string(options.max_total_bytes) +
                     " bytes; open a sub-folder or extend .gitignore");
    }
    if (!utf8::isValid(bytes)) {
      std::size_t replaced = 0;
      bytes = utf8::sanitize(bytes, &replaced);
      stats.invalid_utf8_replaced += replaced;
    }
    RepositoryFile file;
    file.path = displayPath(candidate.relative);
    file.header_line = lines_so_far;
    file.source_bytes = source_bytes;
    file.line_count = appendRepositoryFile(text, file.path, bytes);
    lines_so_far += 1 + file.line_count;
    files.push_back(std::move(file));
    ++stats.files_included;
  }
  if (options.progress) options.progress(total, total);
  return Document(std::move(text), folder, DocumentKind::Repository, stats, std::move(files));
}

}  // namespace studio::document

#include "core/common/remove_tree.h"

#include <ftw.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/common/error.h"

namespace studio {
namespace {

thread_local std::string t_failed_entry;
thread_local int t_failed_errno = 0;

int removeEntry(const char* entry, const struct stat*, int, struct FTW*) {
  if (std::remove(entry) != 0 && errno != ENOENT) {
    t_failed_entry = entry;
    t_failed_errno = errno;
    return 1;  // stops the walk
  }
  return 0;
}

}  // namespace

void removeTree(const std::string& path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return;
    throwError(ErrorKind::Io, path, "", std::string("cannot remove: ") + std::strerror(errno));
  }
  t_failed_entry.clear();
  // FTW_DEPTH: a folder's contents before the folder; FTW_PHYS: links themselves, not their targets.
  const int walked = ::nftw(path.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
  if (walked == 0) return;
  if (!t_failed_entry.empty()) {
    throwError(ErrorKind::Io, t_failed_entry, "",
               std::string("cannot remove: ") + std::strerror(t_failed_errno));
  }
  throwError(ErrorKind::Io, path, "", std::string("cannot remove: ") + std::strerror(errno));
}

}  // namespace studio

#include "sessions/writer_lock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/common/error.h"

namespace studio::sessions {

namespace {

struct flock wholeFile(short type) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;
  return lock;
}

pid_t readPid(int fd) {
  char buffer[32] = {};
  const ssize_t bytes = ::pread(fd, buffer, sizeof(buffer) - 1, 0);
  if (bytes <= 0) return 0;
  return static_cast<pid_t>(std::strtol(buffer, nullptr, 10));
}

}  // namespace

std::string WriterLock::lockPath(const std::string& session_path) {
  return session_path + "-lock";
}

WriterLock::WriterLock(const std::string& session_path) : m_path(lockPath(session_path)) {
  // A holder removes the sidecar when it lets go; whoever opened the old file just before that
  // would lock an orphan while a third process locks a new file under the same name. Checking
  // that the locked file is still the one the name points to closes that gap.
  for (int attempt = 0; attempt < 64; ++attempt) {
    const int fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      throwError(ErrorKind::Session, m_path, "",
                 std::string("cannot create the session's writer lock: ") + std::strerror(errno));
    }
    struct flock lock = wholeFile(F_WRLCK);
    if (::fcntl(fd, F_OFD_SETLK, &lock) != 0) {
      const int error = errno;
      if (error == EAGAIN || error == EACCES) {
        m_holder_pid = readPid(fd);
        ::close(fd);
        return;
      }
      ::close(fd);
      throwError(ErrorKind::Session, m_path, "",
                 std::string("cannot lock the session's writer lock: ") + std::strerror(error));
    }
    struct stat opened {};
    struct stat named {};
    if (::fstat(fd, &opened) == 0 && ::stat(m_path.c_str(), &named) == 0 &&
        opened.st_dev == named.st_dev && opened.st_ino == named.st_ino) {
      const std::string pid = std::to_string(::getpid()) + "\n";
      // The pid only makes the "locked by" message helpful; the lock itself is what counts, so
      // a failed write just leaves others reading pid 0 (unknown).
      if (::ftruncate(fd, 0) == 0) {
        const ssize_t written = ::pwrite(fd, pid.data(), pid.size(), 0);
        static_cast<void>(written);
      }
      m_fd = fd;
      return;
    }
    ::close(fd);
  }
  throwError(ErrorKind::Session, m_path, "", "the writer lock keeps being replaced; giving up");
}

WriterLock::~WriterLock() {
  if (m_fd < 0) return;
  // Unlink while still holding the lock, so no one can lock the old file and believe it current.
  ::unlink(m_path.c_str());
  ::close(m_fd);
}

bool WriterLock::isHeld(const std::string& session_path, pid_t* holder_pid) {
  const std::string path = lockPath(session_path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct flock probe = wholeFile(F_RDLCK);
  const bool held = ::fcntl(fd, F_OFD_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
  if (held && holder_pid) *holder_pid = readPid(fd);
  ::close(fd);
  return held;
}

}  // namespace studio::sessions

#pragma once
// The one-writer rule of a session file. A process that opens a session read-write holds an
// exclusive lock on the sidecar file "<session>-lock" for as long as the store is open. The
// kernel drops the lock when the process ends, however it ends (SIGKILL included), so "no lock
// held" reliably means "no live writer": that is what lets an opener mark runs left `running`
// as interrupted. Open-file-description locks (F_OFD_SETLK) are used rather than POSIX record
// locks, because closing any descriptor of a file drops a process's POSIX locks on it, and
// rather than flock(), because they can be tested without being taken (F_OFD_GETLK).

#include <sys/types.h>
#include <string>

namespace studio::sessions {

class WriterLock {
 public:
  // Tries to take the lock of `session_path` without waiting. locked() says whether it did.
  // Throws studio::Error (Session) when the sidecar cannot be created (read-only folder, ...).
  explicit WriterLock(const std::string& session_path);
  // Releases the lock and removes the sidecar.
  ~WriterLock();
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

  bool locked() const { return m_fd >= 0; }
  // When the lock is held elsewhere: that writer's pid as it wrote it (0 when unknown).
  pid_t holderPid() const { return m_holder_pid; }

  static std::string lockPath(const std::string& session_path);
  // Whether a live process holds the lock of `session_path` now; `holder_pid` (optional)
  // receives its pid. Takes nothing and creates nothing.
  static bool isHeld(const std::string& session_path, pid_t* holder_pid = nullptr);

 private:
  std::string m_path;
  int m_fd = -1;
  pid_t m_holder_pid = 0;
};

}  // namespace studio::sessions

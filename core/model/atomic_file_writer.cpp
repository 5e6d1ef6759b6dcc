#include "core/model/atomic_file_writer.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/common/error.h"

namespace studio::model {

namespace {

std::string folderOf(const std::string& path) {
  const std::filesystem::path target(path);
  return target.has_parent_path() ? target.parent_path().string() : std::string(".");
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path)
    : m_path(std::move(path)), m_name(std::filesystem::path(m_path).filename().string()) {
  m_temp = (std::filesystem::path(folderOf(m_path)) / ("." + m_name + ".tmp-XXXXXX")).string();
  m_fd = ::mkstemp(m_temp.data());
  if (m_fd < 0) {
    throwError(ErrorKind::Io, m_name, "",
               "cannot create a temporary file in " + folderOf(m_path) + ": " +
                   std::strerror(errno));
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (m_fd >= 0) ::close(m_fd);
  if (!m_committed) ::unlink(m_temp.c_str());
}

void AtomicFileWriter::fail(const std::string& what) {
  const std::string reason = std::strerror(errno);
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
  throwError(ErrorKind::Io, m_name, "", what + ": " + reason);
}

void AtomicFileWriter::write(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(m_fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write failed");
    if (n == 0) {
      errno = ENOSPC;
      fail("write failed");
    }
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
}

void AtomicFileWriter::commit() {
  // mkstemp creates the file readable by its owner only; a model folder is shared like any other.
  if (::fchmod(m_fd, 0644) != 0) fail("chmod failed");
  if (::fsync(m_fd) != 0) fail("fsync failed");
  const int fd = m_fd;
  m_fd = -1;
  if (::close(fd) != 0) fail("close failed");
  if (::rename(m_temp.c_str(), m_path.c_str()) != 0) fail("cannot rename into place");
  m_committed = true;
  // The rename is durable only once the folder is synced; a failure here loses nothing written.
  const int folder = ::open(folderOf(m_path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder >= 0) {
    ::fsync(folder);
    ::close(folder);
  }
}

void writeFileAtomically(const std::string& path, const std::string& bytes) {
  AtomicFileWriter writer(path);
  writer.write(bytes);
  writer.commit();
}

}  // namespace studio::model

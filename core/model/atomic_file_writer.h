#pragma once
// Writes a file so that readers see either the old file or the complete new one, never a torn
// write: the bytes go to a temporary file in the same folder, which is fsynced and renamed over
// the target; the folder is synced after the rename.

#include <cstddef>
#include <string>

namespace studio::model {

class AtomicFileWriter {
 public:
  // Creates the temporary file. Throws studio::Error (Io) naming the target's file name.
  explicit AtomicFileWriter(std::string path);
  // Removes the temporary file unless commit() succeeded.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, std::size_t size);
  void write(const std::string& text) { write(text.data(), text.size()); }
  // fsync, rename into place, sync the folder.
  void commit();

 private:
  [[noreturn]] void fail(const std::string& what);

  std::string m_path;
  std::string m_name;  // for messages
  std::string m_temp;
  int m_fd = -1;
  bool m_committed = false;
};

// The whole file at once.
void writeFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace studio::model

#pragma once
// A tiny random model folder for the end-to-end [gui] tests: a 2-layer qwen3 with a byte-level
// tokenizer in a process-unique temp folder, removed on destruction. No torch in this header, so
// Qt test files can include it.

#include <string>

namespace studio::gui_test {

class TinyModelFolder {
 public:
  TinyModelFolder();
  ~TinyModelFolder();
  TinyModelFolder(const TinyModelFolder&) = delete;
  TinyModelFolder& operator=(const TinyModelFolder&) = delete;
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

}  // namespace studio::gui_test

#pragma once
// What the fuzz harnesses share. Each harness defines LLVMFuzzerTestOneInput: a studio::Error is
// the expected answer to a hostile input and is swallowed; anything else (another exception, a
// crash, a sanitizer report, a hang) is a finding. The same harnesses replay their corpus and
// reproducers under `make check` (replay_main.cpp) and run under libFuzzer with `make fuzz`.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace studio::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A file holding the input, for loaders that read paths. One per process (libFuzzer runs one
// input at a time), under TMPDIR; `name` is the file name a loader may read meaning from.
class InputFile {
 public:
  InputFile(std::string_view contents, const std::string& name);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  const std::string& path() const { return m_path; }

 private:
  std::string m_folder;
  std::string m_path;
};

// The first `separator`-delimited part of the input and the rest (the rest empty when there is
// no separator): harnesses that take two inputs split one.
std::pair<std::string_view, std::string_view> splitInput(std::string_view input,
                                                         std::string_view separator);

}  // namespace studio::fuzz

#include "fuzz_support.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "core/common/remove_tree.h"

namespace studio::fuzz {

InputFile::InputFile(std::string_view contents, const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/studio-fuzz-XXXXXX";
  if (!::mkdtemp(pattern.data())) std::abort();
  m_folder = pattern;
  m_path = m_folder + "/" + name;
  std::ofstream out(m_path, std::ios::binary);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
}

InputFile::~InputFile() { removeTree(m_folder); }

std::pair<std::string_view, std::string_view> splitInput(std::string_view input,
                                                         std::string_view separator) {
  const std::size_t at = input.find(separator);
  if (at == std::string_view::npos) return {input, {}};
  return {input.substr(0, at), input.substr(at + separator.size())};
}

}  // namespace studio::fuzz

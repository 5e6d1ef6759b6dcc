#include "core/document/repository_format.h"

namespace studio::document {

namespace {

constexpr std::string_view kHeaderOpen = "=== ";
constexpr std::string_view kHeaderClose = " ===";

}  // namespace

std::string repositoryHeader(std::string_view path) {
  std::string header(kHeaderOpen);
  for (char c : path) {
    header.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
  }
  header.append(kHeaderClose);
  return header;
}

std::size_t appendRepositoryFile(std::string& out, std::string_view path,
                                 std::string_view content) {
  out.append(repositoryHeader(path));
  out.push_back('\n');
  std::size_t lines = 0;
  std::size_t start = 0;
  while (start < content.size()) {
    std::size_t end = content.find('\n', start);
    const std::size_t next = end == std::string_view::npos ? content.size() : end + 1;
    if (end == std::string_view::npos) end = content.size();
    std::string_view text = content.substr(start, end - start);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    ++lines;
    out.push_back('L');
    out.append(std::to_string(lines));
    out.append(": ");
    out.append(text);
    out.push_back('\n');
    start = next;
  }
  return lines;
}

std::optional<std::string> parseRepositoryHeader(std::string_view line) {
  if (line.size() < kHeaderOpen.size() + kHeaderClose.size() + 1) return std::nullopt;
  if (line.substr(0, kHeaderOpen.size()) != kHeaderOpen) return std::nullopt;
  if (line.substr(line.size() - kHeaderClose.size()) != kHeaderClose) return std::nullopt;
  return std::string(
      line.substr(kHeaderOpen.size(), line.size() - kHeaderOpen.size() - kHeaderClose.size()));
}

std::optional<std::size_t> parseNumberedLine(std::string_view line, std::string_view* text) {
  if (line.size() < 4 || line[0] != 'L') return std::nullopt;
  std::size_t i = 1;
  std::size_t number = 0;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9') {
    number = number * 10 + static_cast<std::size_t>(line[i] - '0');
    ++i;
  }
  if (i == 1 || line.substr(i, 2) != ": ") return std::nullopt;
  if (text) *text = line.substr(i + 2);
  return number;
}

}  // namespace studio::document

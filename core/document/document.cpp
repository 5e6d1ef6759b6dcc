#include "core/document/document.h"

#include <algorithm>
#include <cstring>

namespace studio::document {

const char* documentKindName(DocumentKind kind) {
  switch (kind) {
    case DocumentKind::Text:
      return "text";
    case DocumentKind::Repository:
      return "repository";
  }
  return "text";
}

Document::Document(std::string text, std::string source_path, DocumentKind kind,
                   DocumentStats stats, std::vector<RepositoryFile> files)
    : m_text(std::move(text)),
      m_source_path(std::move(source_path)),
      m_kind(kind),
      m_stats(stats),
      m_files(std::move(files)) {
  // memchr runs at memory speed; a 50 MB document is indexed in a few tens of milliseconds.
  const char* begin = m_text.data();
  const char* end = begin + m_text.size();
  const char* cursor = begin;
  while (cursor < end) {
    m_line_starts.push_back(static_cast<std::uint64_t>(cursor - begin));
    const void* newline = std::memchr(cursor, '\n', static_cast<std::size_t>(end - cursor));
    const char* line_end = newline ? static_cast<const char*>(newline) : end;
    m_max_line_bytes = std::max<std::size_t>(m_max_line_bytes, line_end - cursor);
    cursor = newline ? line_end + 1 : end;
  }
}

Span Document::lineSpan(std::size_t index) const {
  if (index >= m_line_starts.size()) {
    return Span{static_cast<std::int64_t>(m_text.size()), static_cast<std::int64_t>(m_text.size())};
  }
  const std::uint64_t start = m_line_starts[index];
  const bool last = index + 1 == m_line_starts.size();
  // Every line but the last ends in '\n' (the next line starts after it); the last may or may not.
  std::uint64_t end =
      last ? static_cast<std::uint64_t>(m_text.size()) : m_line_starts[index + 1] - 1;
  if (last && end > start && m_text[end - 1] == '\n') --end;
  if (end > start && m_text[end - 1] == '\r') --end;
  return Span{static_cast<std::int64_t>(start), static_cast<std::int64_t>(end)};
}

std::string_view Document::line(std::size_t index) const {
  const Span span = lineSpan(index);
  return std::string_view(m_text).substr(static_cast<std::size_t>(span.start),
                                         static_cast<std::size_t>(span.size()));
}

std::size_t Document::lineOfByte(std::uint64_t offset) const {
  if (m_line_starts.empty()) return 0;
  const auto it = std::upper_bound(m_line_starts.begin(), m_line_starts.end(), offset);
  return static_cast<std::size_t>(it - m_line_starts.begin()) - 1;
}

std::int64_t Document::findFileLine(std::string_view path, std::size_t line_number) const {
  for (const RepositoryFile& file : m_files) {
    if (file.path != path) continue;
    if (line_number < 1 || line_number > file.line_count) return -1;
    return static_cast<std::int64_t>(file.header_line + line_number);
  }
  return -1;
}

}  // namespace studio::document

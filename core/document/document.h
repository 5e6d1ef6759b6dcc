#pragma once
// A document the studio analyses: UTF-8 text plus where it came from and a line index. A code
// repository opened as a folder is one Document too, in the format of repository_format.h.
// Documents are immutable once built and shared between threads as shared_ptr<const Document>.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/span.h"

namespace studio::document {

enum class DocumentKind { Text, Repository };

const char* documentKindName(DocumentKind kind);

// What loading did to the input, so a person can see what the text does not contain.
struct DocumentStats {
  std::size_t files_included = 0;           // 1 for a text file
  std::size_t binary_files_skipped = 0;     // repository: NUL bytes or mostly invalid UTF-8
  std::size_t ignored_files_skipped = 0;    // repository: .gitignore, hidden, symlinks
  std::size_t ignored_folders_skipped = 0;  // repository: .git/, build*/, ... (not descended)
  std::size_t large_files_skipped = 0;      // repository: over the per-file limit
  std::size_t invalid_utf8_replaced = 0;    // sequences replaced by U+FFFD
};

// One file of a repository document: its header line and the document lines of its content.
struct RepositoryFile {
  std::string path;             // relative to the folder, '/' separated
  std::size_t header_line = 0;  // document line index (from 0) of "=== path ==="
  std::size_t line_count = 0;   // lines of the file; they follow the header directly
  std::uint64_t source_bytes = 0;
};

class Document {
 public:
  Document() = default;
  // `text` must be valid UTF-8 (the loaders sanitize it); the line index is built here.
  Document(std::string text, std::string source_path, DocumentKind kind, DocumentStats stats = {},
           std::vector<RepositoryFile> files = {});

  const std::string& text() const { return m_text; }
  const std::string& sourcePath() const { return m_source_path; }
  DocumentKind kind() const { return m_kind; }
  const DocumentStats& stats() const { return m_stats; }
  const std::vector<RepositoryFile>& files() const { return m_files; }
  std::uint64_t sizeBytes() const { return m_text.size(); }

  // Lines are separated by '\n'; a final '\n' ends the last line without starting another, so
  // "a\nb\n" has two lines and an empty document none. A line's text excludes its '\n' and a
  // '\r' before it.
  std::size_t lineCount() const { return m_line_starts.size(); }
  std::string_view line(std::size_t index) const;
  Span lineSpan(std::size_t index) const;  // bytes of line(index) in text()
  // The line holding byte `offset` (the last line for offsets at or past the end). Requires at
  // least one line.
  std::size_t lineOfByte(std::uint64_t offset) const;
  // The longest line in bytes, for sizing a view without scanning the text again.
  std::size_t maxLineBytes() const { return m_max_line_bytes; }

  // Repository documents: the document line index of line `line_number` (from 1, as in "L<n>:")
  // of file `path`; -1 when there is no such file or line.
  std::int64_t findFileLine(std::string_view path, std::size_t line_number) const;

 private:
  std::string m_text;
  std::string m_source_path;
  DocumentKind m_kind = DocumentKind::Text;
  DocumentStats m_stats;
  std::vector<RepositoryFile> m_files;
  std::vector<std::uint64_t> m_line_starts;  // byte offset of each line's first byte
  std::size_t m_max_line_bytes = 0;
};

}  // namespace studio::document

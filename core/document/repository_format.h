#pragma once
// The text a code repository becomes, shared with the code_bug task so that a model sees the same
// thing whether a person opens a folder or a task generates an item:
//
//   === src/model.py ===
//   L1: import torch
//   L2:
//   L3: class Attention(nn.Module):
//   === src/train.py ===
//   L1: ...
//
// Each file is a header line "=== <path> ===" (the path relative to the opened folder, '/'
// separated) followed by one line per line of the file, "L<n>: " and the line's text, n counting
// from 1 in that file. No blank line separates files; an empty file is its header alone. A file's
// final newline does not make an extra line, and "\r\n" endings lose the '\r'. An answer names a
// line as "path:L<n>".

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace studio::document {

// "=== path ===". Control characters in the path (a newline would break the format) become '?'.
std::string repositoryHeader(std::string_view path);

// Appends the header and the numbered lines of `content` (valid UTF-8) to `out`, each line ending
// in '\n'. Returns the number of lines of the file.
std::size_t appendRepositoryFile(std::string& out, std::string_view path, std::string_view content);

// The path of a header line, or nothing when `line` is not one.
std::optional<std::string> parseRepositoryHeader(std::string_view line);

// The line number of an "L<n>: " line, or nothing; `text` (optional) receives the rest.
std::optional<std::size_t> parseNumberedLine(std::string_view line,
                                             std::string_view* text = nullptr);

}  // namespace studio::document

#pragma once
// Errors are values a person can act on: every failure names the file and the field or tensor.
// They travel as exceptions inside the engine and are caught at its edges (CLI, engine thread, UI),
// where they become a one-line message, an exit code or a failed run, never a crash.

#include <stdexcept>
#include <string>

namespace studio {

enum class ErrorKind {
  Io,           // a file could not be read or written
  Format,       // a file is not what it claims to be (bad JSON, bad safetensors header, ...)
  Config,       // config.json (or another configuration) has a missing or invalid field
  Weights,      // a tensor is missing, has the wrong shape or dtype
  Tokenizer,    // tokenizer.json is invalid or unsupported
  Unsupported,  // a valid input the studio does not handle (pickle checkpoints, rope types, ...)
  Argument,     // a caller passed something invalid (command line, method parameter, ...)
  Session,      // the SQLite session store
  Task,         // task generation or loading
  Cancelled,    // the user cancelled a run
  Internal,     // a broken invariant: a bug in the studio
};

const char* errorKindName(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  // `where` is the file (or other source) the error is about; `field` the field, tensor or key in
  // it. Either may be empty. The message reads "where: field: what" with empty parts left out.
  Error(ErrorKind kind, std::string where, std::string field, const std::string& what);
  Error(ErrorKind kind, const std::string& what) : Error(kind, "", "", what) {}

  ErrorKind kind() const { return m_kind; }
  const std::string& where() const { return m_where; }
  const std::string& field() const { return m_field; }
  // The message without the "where: field: " prefix.
  const std::string& detail() const { return m_detail; }

 private:
  ErrorKind m_kind;
  std::string m_where;
  std::string m_field;
  std::string m_detail;
};

// Shorthands that read well at the throw site.
[[noreturn]] void throwError(ErrorKind kind, const std::string& where, const std::string& field,
                             const std::string& what);
[[noreturn]] inline void throwArgument(const std::string& field, const std::string& what) {
  throwError(ErrorKind::Argument, "", field, what);
}

}  // namespace studio

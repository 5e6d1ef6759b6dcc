#include "core/common/error.h"

namespace studio {

namespace {

std::string composeMessage(const std::string& where, const std::string& field,
                           const std::string& what) {
  std::string message;
  if (!where.empty()) message += where + ": ";
  if (!field.empty()) message += field + ": ";
  message += what;
  return message;
}

}  // namespace

const char* errorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Io: return "io";
    case ErrorKind::Format: return "format";
    case ErrorKind::Config: return "config";
    case ErrorKind::Weights: return "weights";
    case ErrorKind::Tokenizer: return "tokenizer";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::Argument: return "argument";
    case ErrorKind::Session: return "session";
    case ErrorKind::Task: return "task";
    case ErrorKind::Cancelled: return "cancelled";
    case ErrorKind::Internal: return "internal";
  }
  return "unknown";
}

Error::Error(ErrorKind kind, std::string where, std::string field, const std::string& what)
    : std::runtime_error(composeMessage(where, field, what)),
      m_kind(kind),
      m_where(std::move(where)),
      m_field(std::move(field)),
      m_detail(what) {}

void throwError(ErrorKind kind, const std::string& where, const std::string& field,
                const std::string& what) {
  throw Error(kind, where, field, what);
}

}  // namespace studio

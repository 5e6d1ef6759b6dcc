#include "core/common/bounded_json.h"

#include <cerrno>
#include <cstring>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/common/error.h"

namespace studio {

namespace {

// nlohmann's parser keeps its own stack, but copying, dumping and comparing values recurse: the
// nesting is checked on the raw text first, which costs one pass and no allocation.
void checkNesting(const std::string& text, const std::string& file, int max_depth) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        throwError(ErrorKind::Format, file, "",
                   "JSON nests deeper than " + std::to_string(max_depth) + " levels (at byte " +
                       std::to_string(i) + ")");
      }
    } else if (c == ']' || c == '}') {
      --depth;  // unbalanced text is left to the parser, which names the position
    }
  }
}

}  // namespace

nlohmann::json parseBoundedJson(const std::string& text, const std::string& file, int max_depth,
                                bool reject_duplicate_top_level_keys) {
  checkNesting(text, file, max_depth);
  std::set<std::string> top_level_keys;
  nlohmann::json::parser_callback_t callback = nullptr;
  if (reject_duplicate_top_level_keys) {
    callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
      if (event == nlohmann::json::parse_event_t::key && depth == 1 && parsed.is_string()) {
        const auto& key = parsed.get_ref<const std::string&>();
        if (!top_level_keys.insert(key).second) {
          throwError(ErrorKind::Format, file, key, "appears twice");
        }
      }
      return true;
    };
  }
  try {
    return nlohmann::json::parse(text, callback, /*allow_exceptions=*/true,
                                 /*ignore_comments=*/false);
  } catch (const nlohmann::json::exception& error) {
    // A syntax error, or a number too large for a double ("1e999": out_of_range.406).
    // nlohmann's message reads "[json.exception.parse_error.101] parse error at line 1, ...".
    std::string what = error.what();
    const auto bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    throwError(ErrorKind::Format, file, "", "not valid JSON: " + what);
  }
}

std::string readBoundedFile(const std::string& path, const std::string& file,
                            std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    throwError(ErrorKind::Io, file, "", std::string("cannot open: ") + std::strerror(errno));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throwError(ErrorKind::Io, file, "", std::string("cannot stat: ") + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throwError(ErrorKind::Io, file, "", "is a folder, not a file");
  if (!S_ISREG(st.st_mode)) throwError(ErrorKind::Io, file, "", "is not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) {
    throwError(ErrorKind::Format, file, "",
               "is " + std::to_string(size) + " bytes, more than the " +
                   std::to_string(max_bytes) + " bytes such a file may have");
  }
  std::string text(static_cast<std::size_t>(size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throwError(ErrorKind::Io, file, "", std::string("read failed: ") + std::strerror(errno));
    if (n == 0) break;  // shrank while reading: parse what is there
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  return text;
}

nlohmann::json readBoundedJsonFile(const std::string& path, const std::string& file,
                                   std::size_t max_bytes) {
  return parseBoundedJson(readBoundedFile(path, file, max_bytes), file);
}

std::string describeJson(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  const std::string type = value.is_number_integer() ? "integer"
                           : value.is_number()       ? "number"
                                                     : value.type_name();
  if (value.is_null()) return "null";
  return type + " " + text;
}

}  // namespace studio

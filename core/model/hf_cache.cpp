#include "core/model/hf_cache.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include "core/common/error.h"

namespace studio::model {

namespace fs = std::filesystem;

namespace {

// huggingface_hub's validate_repo_id: letters, digits, '-', '_', '.'; no "--" or ".."; the parts
// neither start nor end with '-' or '.'; at most 96 characters in all.
bool isHubNamePart(const std::string& part) {
  if (part.empty()) return false;
  for (const char c : part) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  const auto edge = [](char c) { return c == '-' || c == '.'; };
  return !edge(part.front()) && !edge(part.back()) && part.find("--") == std::string::npos &&
         part.find("..") == std::string::npos;
}

// A branch, tag or commit: the characters git allows that are safe in a path below refs/ or
// snapshots/, '/' only between non-empty parts, no "." or ".." part.
bool isHubRevision(const std::string& revision) {
  if (revision.empty() || revision.front() == '/' || revision.back() == '/') return false;
  for (const char c : revision) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || c == '/';
    if (!ok) return false;
  }
  std::istringstream parts(revision);
  for (std::string part; std::getline(parts, part, '/');) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

std::string environmentValue(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

fs::path homeFolder() {
  const std::string home = environmentValue("HOME");
  if (!home.empty()) return home;
  // Python's expanduser falls back to the password database too.
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 &&
      found != nullptr && found->pw_dir != nullptr) {
    return found->pw_dir;
  }
  return "/";
}

// os.path.expanduser for "~" and "~/...", the forms an environment variable holds.
fs::path expandHome(const std::string& path) {
  if (path == "~") return homeFolder();
  if (path.rfind("~/", 0) == 0) return homeFolder() / path.substr(2);
  return path;
}

// The file's first line, without surrounding whitespace (huggingface_hub writes the hash alone).
std::string readRef(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  const auto first = line.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = line.find_last_not_of(" \t\r\n");
  return line.substr(first, last - first + 1);
}

// "main, v1.0" or "none": the refs (files below refs/, '/'-joined) or snapshot folders held.
std::string listHeld(const fs::path& folder, bool files) {
  std::vector<std::string> names;
  std::error_code ec;
  if (files) {
    for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec)) names.push_back(it->path().lexically_relative(folder).string());
    }
  } else {
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory(ec)) names.push_back(it->path().filename().string());
    }
  }
  if (names.empty()) return "none";
  std::sort(names.begin(), names.end());
  constexpr std::size_t kShown = 8;
  std::string text;
  for (std::size_t i = 0; i < std::min(names.size(), kShown); ++i) {
    text += (i == 0 ? "" : ", ") + names[i];
  }
  if (names.size() > kShown) text += ", ... (" + std::to_string(names.size()) + " in all)";
  return text;
}

std::string neverDownloads(const HubModelName& name) {
  return "the studio never downloads models: fetch it with `hf download " + name.repo_id +
         (name.revision == "main" ? "" : " --revision " + name.revision) +
         "` (or huggingface-cli download, or from_pretrained in Python), or pass the model's folder";
}

}  // namespace

std::optional<HubModelName> parseHubModelName(const std::string& text) {
  HubModelName name;
  std::string repo = text;
  if (const auto at = text.find('@'); at != std::string::npos) {
    repo = text.substr(0, at);
    name.revision = text.substr(at + 1);
    if (!isHubRevision(name.revision)) return std::nullopt;
  }
  constexpr std::size_t kMaxRepoIdLength = 96;
  const auto slash = repo.find('/');
  if (slash == std::string::npos || repo.size() > kMaxRepoIdLength) return std::nullopt;
  if (!isHubNamePart(repo.substr(0, slash)) || !isHubNamePart(repo.substr(slash + 1))) {
    return std::nullopt;
  }
  name.repo_id = repo;
  return name;
}

HubCacheDir hubCacheDir() {
  for (const char* variable : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"}) {
    const std::string value = environmentValue(variable);
    if (!value.empty()) return {expandHome(value), variable};
  }
  if (const std::string home = environmentValue("HF_HOME"); !home.empty()) {
    return {expandHome(home) / "hub", "HF_HOME"};
  }
  if (const std::string xdg = environmentValue("XDG_CACHE_HOME"); !xdg.empty()) {
    return {expandHome(xdg) / "huggingface" / "hub", "XDG_CACHE_HOME"};
  }
  return {homeFolder() / ".cache" / "huggingface" / "hub",
          "the default; HF_HUB_CACHE, HF_HOME and XDG_CACHE_HOME are unset"};
}

fs::path findHubSnapshot(const HubModelName& name, const HubCacheDir& cache) {
  std::string folder_name = "models--" + name.repo_id;
  folder_name.replace(folder_name.find('/'), 1, "--");
  const fs::path repo = cache.path / folder_name;
  const std::string where = name.repo_id + (name.revision == "main" ? "" : "@" + name.revision);
  const std::string searched =
      "the Hugging Face cache " + cache.path.string() + " (from " + cache.source + ")";
  std::error_code ec;
  if (!fs::is_directory(repo, ec)) {
    throwError(ErrorKind::Io, where, "",
               "not a local folder, and not in " + searched + ": there is no " + repo.string() +
                   "; " + neverDownloads(name));
  }
  const fs::path ref = repo / "refs" / name.revision;
  const bool has_ref = fs::is_regular_file(ref, ec);
  const std::string commit = has_ref ? readRef(ref) : name.revision;
  const fs::path snapshot = repo / "snapshots" / commit;
  if (!commit.empty() && commit.find('/') == std::string::npos && fs::is_directory(snapshot, ec)) {
    return snapshot;
  }
  const std::string held = "the cache holds refs: " + listHeld(repo / "refs", true) +
                           "; snapshots: " + listHeld(repo / "snapshots", false);
  if (has_ref) {
    throwError(ErrorKind::Io, where, "",
               ref.string() + " names commit '" + commit + "', but there is no " +
                   snapshot.string() + " in " + searched + " (an interrupted download?); " +
                   held + "; " + neverDownloads(name));
  }
  throwError(ErrorKind::Io, where, "",
             "revision '" + name.revision + "' is not in " + searched + ": there is neither " +
                 ref.string() + " nor " + snapshot.string() + "; " + held + "; " +
                 neverDownloads(name));
}

std::string resolveModelFolder(const std::string& text) {
  std::error_code ec;
  if (text.empty() || fs::is_directory(text, ec)) return text;
  const std::optional<HubModelName> name = parseHubModelName(text);
  if (!name) return text;
  return findHubSnapshot(*name, hubCacheDir()).string();
}

}  // namespace studio::model

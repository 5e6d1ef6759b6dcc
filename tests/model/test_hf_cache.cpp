// Models named Org/Name[@revision], found in a fixture Hugging Face hub cache the way
// from_pretrained finds them: the cache folder from HF_HUB_CACHE / HF_HOME / XDG_CACHE_HOME /
// HOME, refs/<branch> to a snapshot, commits named directly, a local folder winning over the
// cache, and errors that say where they looked and that nothing is downloaded.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/engine/model_cache.h"
#include "core/model/hf_cache.h"
#include "core/model/model_loader.h"
#include "support/hub_cache_fixture.h"
#include "support/temp_dir.h"
#include "support/tiny_model_folder.h"

namespace fs = std::filesystem;
using studio::model::findHubSnapshot;
using studio::model::hubCacheDir;
using studio::model::parseHubModelName;
using studio::model::resolveModelFolder;
using studio::test::TempDir;
using studio::test::addHubSnapshot;
using studio::test::folderFiles;

namespace {

// Clears the variables that choose the hub cache for the test's lifetime and restores them after.
class HubEnvironment {
 public:
  HubEnvironment() {
    for (const char* name :
         {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "HOME"}) {
      const char* value = std::getenv(name);
      m_saved.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
      ::unsetenv(name);
    }
  }
  ~HubEnvironment() {
    for (const auto& [name, value] : m_saved) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  HubEnvironment(const HubEnvironment&) = delete;
  HubEnvironment& operator=(const HubEnvironment&) = delete;

  void set(const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); }
  void unset(const char* name) { ::unsetenv(name); }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> m_saved;
};

// Runs the test in `folder` and returns to the previous working folder after.
class WorkingFolder {
 public:
  explicit WorkingFolder(const fs::path& folder) : m_previous(fs::current_path()) {
    fs::current_path(folder);
  }
  ~WorkingFolder() { fs::current_path(m_previous); }
  WorkingFolder(const WorkingFolder&) = delete;
  WorkingFolder& operator=(const WorkingFolder&) = delete;

 private:
  fs::path m_previous;
};

constexpr const char* kCommit = "0123456789abcdef0123456789abcdef01234567";
constexpr const char* kOldCommit = "fedcba9876543210fedcba9876543210fedcba98";

void writeFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string errorOf(const std::string& name) {
  try {
    resolveModelFolder(name);
  } catch (const studio::Error& error) {
    CHECK(error.kind() == studio::ErrorKind::Io);
    return error.what();
  }
  FAIL("resolveModelFolder(\"" << name << "\") did not throw");
  return "";
}

}  // namespace

TEST_CASE("hub names: Org/Name and Org/Name@revision; paths and odd names are not", "[model]") {
  auto name = parseHubModelName("Qwen/Qwen3-0.6B");
  REQUIRE(name);
  CHECK(name->repo_id == "Qwen/Qwen3-0.6B");
  CHECK(name->revision == "main");

  name = parseHubModelName("meta-llama/Llama-3.2-1B@v1.0");
  REQUIRE(name);
  CHECK(name->repo_id == "meta-llama/Llama-3.2-1B");
  CHECK(name->revision == "v1.0");

  name = parseHubModelName(std::string("org_1/model.v2@") + kCommit);
  REQUIRE(name);
  CHECK(name->revision == kCommit);
  CHECK(parseHubModelName("Org/Name@refs/pr/1"));

  for (const char* not_a_name :
       {"gpt2", "/models/qwen", "./qwen/x", "a/b/c", "Org/", "/Name", "Org/Name@", "Org/Name@../x",
        "Org/Name@a//b", "Org/Name@/x", "Org--A/Name", "Org/Na..me", "-Org/Name", "Org/Name.",
        "~/models", "Org/Na me", "models\\x/y"}) {
    INFO(not_a_name);
    CHECK_FALSE(parseHubModelName(not_a_name));
  }
  CHECK_FALSE(parseHubModelName("Org/" + std::string(100, 'x')));
}

TEST_CASE("hub cache folder: HF_HUB_CACHE, then HF_HOME/hub, XDG_CACHE_HOME, ~/.cache", "[model]") {
  HubEnvironment env;
  env.set("HOME", "/home/researcher");
  CHECK(hubCacheDir().path == fs::path("/home/researcher/.cache/huggingface/hub"));

  env.set("XDG_CACHE_HOME", "/xdg");
  CHECK(hubCacheDir().path == fs::path("/xdg/huggingface/hub"));
  CHECK(hubCacheDir().source == "XDG_CACHE_HOME");

  env.set("HF_HOME", "/data/hf");
  CHECK(hubCacheDir().path == fs::path("/data/hf/hub"));
  CHECK(hubCacheDir().source == "HF_HOME");

  env.set("HUGGINGFACE_HUB_CACHE", "/legacy/hub");
  CHECK(hubCacheDir().path == fs::path("/legacy/hub"));

  env.set("HF_HUB_CACHE", "/fast/hub");
  CHECK(hubCacheDir().path == fs::path("/fast/hub"));
  CHECK(hubCacheDir().source == "HF_HUB_CACHE");

  // A leading ~ is the home folder, as Python's expanduser makes it; empty counts as unset.
  env.set("HF_HUB_CACHE", "~/hub-cache");
  CHECK(hubCacheDir().path == fs::path("/home/researcher/hub-cache"));
  env.set("HF_HUB_CACHE", "");
  env.unset("HUGGINGFACE_HUB_CACHE");
  CHECK(hubCacheDir().path == fs::path("/data/hf/hub"));
}

TEST_CASE("hub cache: refs/main leads to its snapshot, whose files are read through the blobs",
          "[model]") {
  HubEnvironment env;
  TempDir temp("hf-cache");
  const fs::path cache = temp / "hub";
  env.set("HF_HUB_CACHE", cache.string());
  const fs::path current = addHubSnapshot(cache, "models--Org--Tiny", kCommit,
                                       {{"config.json", "{\"current\": true}"}}, {"main"});
  const fs::path old = addHubSnapshot(cache, "models--Org--Tiny", kOldCommit,
                                   {{"config.json", "{\"current\": false}"}}, {"v1.0"});

  const std::string resolved = resolveModelFolder("Org/Tiny");
  CHECK(fs::path(resolved) == current);
  CHECK(readText(fs::path(resolved) / "config.json") == "{\"current\": true}");

  // A tag through refs/, a commit by its hash.
  CHECK(fs::path(resolveModelFolder("Org/Tiny@v1.0")) == old);
  CHECK(fs::path(resolveModelFolder(std::string("Org/Tiny@") + kOldCommit)) == old);

  // A ref written with a trailing newline (by hand, or by another tool) still resolves.
  writeFile(cache / "models--Org--Tiny" / "refs" / "main", std::string(kOldCommit) + "\n");
  CHECK(fs::path(resolveModelFolder("Org/Tiny")) == old);
}

TEST_CASE("hub cache: HF_HUB_CACHE wins over HF_HOME, HF_HOME over the home folder", "[model]") {
  HubEnvironment env;
  TempDir temp("hf-precedence");
  const fs::path in_home = addHubSnapshot(temp / "home" / ".cache" / "huggingface" / "hub",
                                       "models--Org--Tiny", kCommit, {{"config.json", "home"}},
                                       {"main"});
  const fs::path in_hf_home = addHubSnapshot(temp / "hf-home" / "hub", "models--Org--Tiny", kCommit,
                                          {{"config.json", "hf-home"}}, {"main"});
  const fs::path in_hub_cache = addHubSnapshot(temp / "hub-cache", "models--Org--Tiny", kCommit,
                                            {{"config.json", "hub-cache"}}, {"main"});

  env.set("HOME", (temp / "home").string());
  CHECK(fs::path(resolveModelFolder("Org/Tiny")) == in_home);
  env.set("HF_HOME", (temp / "hf-home").string());
  CHECK(fs::path(resolveModelFolder("Org/Tiny")) == in_hf_home);
  env.set("HF_HUB_CACHE", (temp / "hub-cache").string());
  CHECK(fs::path(resolveModelFolder("Org/Tiny")) == in_hub_cache);
  CHECK(readText(in_hub_cache / "config.json") == "hub-cache");
}

TEST_CASE("hub cache: a local folder wins; other strings pass through to the loader", "[model]") {
  HubEnvironment env;
  TempDir temp("hf-local");
  env.set("HF_HUB_CACHE", (temp / "hub").string());
  addHubSnapshot(temp / "hub", "models--Org--Tiny", kCommit, {{"config.json", "cached"}}, {"main"});
  fs::create_directories(temp / "work" / "Org" / "Tiny");
  const WorkingFolder in_work(temp / "work");

  CHECK(resolveModelFolder("Org/Tiny") == "Org/Tiny");  // the folder ./Org/Tiny
  const std::string absolute = (temp / "work" / "Org" / "Tiny").string();
  CHECK(resolveModelFolder(absolute) == absolute);
  // Not a folder and not a hub name: unchanged, for the loader to name the missing folder.
  CHECK(resolveModelFolder("/nonexistent/model") == "/nonexistent/model");
  CHECK(resolveModelFolder("tiny") == "tiny");
  CHECK(resolveModelFolder("") == "");
}

TEST_CASE("hub cache: a missing model or revision names the folder searched, never downloads",
          "[model]") {
  HubEnvironment env;
  TempDir temp("hf-missing");
  const fs::path cache = temp / "hub";
  env.set("HF_HUB_CACHE", cache.string());
  addHubSnapshot(cache, "models--Org--Tiny", kCommit, {{"config.json", "{}"}}, {"main"});

  std::string message = errorOf("Org/Absent");
  INFO(message);
  CHECK(message.find("Org/Absent") != std::string::npos);
  CHECK(message.find((cache / "models--Org--Absent").string()) != std::string::npos);
  CHECK(message.find("HF_HUB_CACHE") != std::string::npos);
  CHECK(message.find("never downloads") != std::string::npos);
  CHECK(message.find("hf download Org/Absent") != std::string::npos);

  // The cache folder chosen by HF_HOME is the one named when HF_HUB_CACHE is unset.
  env.unset("HF_HUB_CACHE");
  env.set("HF_HOME", (temp / "hf-home").string());
  message = errorOf("Org/Tiny");
  CHECK(message.find((temp / "hf-home" / "hub").string()) != std::string::npos);
  CHECK(message.find("HF_HOME") != std::string::npos);
  env.set("HF_HUB_CACHE", cache.string());

  // A revision the cache does not hold: says what it does hold.
  message = errorOf("Org/Tiny@v2");
  CHECK(message.find("revision 'v2'") != std::string::npos);
  CHECK(message.find("refs: main") != std::string::npos);
  CHECK(message.find(std::string("snapshots: ") + kCommit) != std::string::npos);
  CHECK(message.find("never downloads") != std::string::npos);

  // refs/main names a commit whose snapshot is gone (an interrupted download).
  fs::remove_all(cache / "models--Org--Tiny" / "snapshots" / kCommit);
  message = errorOf("Org/Tiny");
  CHECK(message.find(std::string("names commit '") + kCommit + "'") != std::string::npos);
  CHECK(message.find("never downloads") != std::string::npos);

  // The error object carries the name as `where`, for callers that show it apart.
  try {
    findHubSnapshot(*parseHubModelName("Org/Absent"), hubCacheDir());
    FAIL("no error");
  } catch (const studio::Error& error) {
    CHECK(error.where() == "Org/Absent");
  }
}

TEST_CASE("hub cache: runs, sweeps and the window load Org/Name through the model cache", "[model]") {
  HubEnvironment env;
  TempDir temp("hf-cache-engine");
  const fs::path cache = temp / "hub";
  env.set("HF_HUB_CACHE", cache.string());
  const studio::test::TinyModelFolder tiny("hf-cache-engine-model");
  addHubSnapshot(cache, "models--Org--Tiny", kCommit, folderFiles(tiny.path()), {"main"});
  studio::engine::ModelCache models;
  const studio::engine::CachedModel loaded = models.get("Org/Tiny", "cpu", "f32");
  REQUIRE(loaded.model);
  CHECK(loaded.model->config.vocab_size == tiny.config().vocab_size);
  CHECK(loaded.tokenizer);
  CHECK_THROWS_WITH(models.get("Org/Missing", "cpu", "f32"), Catch::Contains("never download"));
}

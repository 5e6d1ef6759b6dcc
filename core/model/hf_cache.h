#pragma once
// Models named as the Hugging Face hub names them ("Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B@<rev>"),
// found offline in the local hub cache the way `from_pretrained` finds them. The studio never
// downloads: a model that is not in the cache is an error that says where it looked.
//
// The cache layout (huggingface_hub's file_download.py):
//   <cache>/models--Org--Name/refs/<branch or tag>     a file holding a commit hash
//   <cache>/models--Org--Name/snapshots/<hash>/...     the files (symlinks into ../../blobs/)

#include <filesystem>
#include <optional>
#include <string>

namespace studio::model {

struct HubModelName {
  std::string repo_id;            // "Org/Name"
  std::string revision = "main";  // a branch or tag (refs/<revision>) or a commit hash
};

// "Org/Name" or "Org/Name@revision" when `text` has that form (one '/', each part of letters,
// digits, '-', '_' and '.', neither "--" nor ".."), otherwise nullopt. A revision may hold '/'
// ("refs/pr/1") but no ".." part.
std::optional<HubModelName> parseHubModelName(const std::string& text);

struct HubCacheDir {
  std::filesystem::path path;
  std::string source;  // what chose it: "HF_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", ...
};

// The hub cache folder, chosen as huggingface_hub's constants.py chooses it: $HF_HUB_CACHE, else
// $HUGGINGFACE_HUB_CACHE (its older name), else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub. A leading '~' is the home
// folder. Unlike Python, a variable set to the empty string counts as unset.
HubCacheDir hubCacheDir();

// The snapshot folder of `name` in `cache`: refs/<revision> names the commit when that file
// exists, otherwise the revision is taken as the commit itself (as try_to_load_from_cache does).
// Throws Error (Io) when the cache has no such model or revision: the message names the folders
// it looked in, the revisions the cache does hold, and says that the studio never downloads.
std::filesystem::path findHubSnapshot(const HubModelName& name, const HubCacheDir& cache);

// What a user's model argument names: `text` itself when it is an existing folder (a local path
// always wins); else, when it reads Org/Name[@revision], that model's snapshot folder in the hub
// cache (hubCacheDir(); throws as findHubSnapshot does when it is not there); else `text`
// unchanged, for the loader to report.
std::string resolveModelFolder(const std::string& text);

}  // namespace studio::model

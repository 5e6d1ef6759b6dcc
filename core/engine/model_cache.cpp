#include "core/engine/model_cache.h"

#include <filesystem>

#include "core/model/hf_cache.h"
#include "core/model/model_loader.h"

namespace studio::engine {

std::shared_ptr<const tokenizer::Tokenizer> loadFolderTokenizer(const std::string& dir) {
  const std::filesystem::path path = std::filesystem::path(dir) / "tokenizer.json";
  if (!std::filesystem::exists(path)) return nullptr;
  return tokenizer::Tokenizer::fromFile(path.string());
}

CachedModel ModelCache::get(const std::string& model, const std::string& device,
                            const std::string& dtype) {
  // A folder, or Org/Name[@revision] in the local Hugging Face cache (sweeps and the window).
  const std::string path = model::resolveModelFolder(model);
  std::error_code ignored;
  const auto canonical = std::filesystem::weakly_canonical(path, ignored).string();
  const std::string key = canonical + "|" + device + "|" + dtype;
  std::lock_guard<std::mutex> lock(m_mutex);
  for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
    if (it->key == key) {
      Entry entry = *it;
      m_entries.erase(it);
      m_entries.push_back(entry);
      return entry.value;
    }
  }
  CachedModel loaded;
  loaded.model = model::loadModel(path, {device, dtype});
  loaded.tokenizer = loadFolderTokenizer(path);
  loaded.chat = tokenizer::readFolderChatTemplate(path);
  loaded.provenance = provenanceOf(*loaded.model);
  m_entries.push_back({key, loaded});
  while (m_entries.size() > m_capacity) m_entries.erase(m_entries.begin());
  return loaded;
}

void ModelCache::clear() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_entries.clear();
}

}  // namespace studio::engine

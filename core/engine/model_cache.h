#pragma once
// Loaded models (and their tokenizers) kept between runs: a comparison runs several methods on
// one model, and loading is paid once.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/engine/provenance.h"
#include "core/tokenizer/chat_template.h"
#include "core/tokenizer/tokenizer.h"

namespace studio::model {
struct LoadedModel;
}  // namespace studio::model

namespace studio::engine {

struct CachedModel {
  std::shared_ptr<model::LoadedModel> model;
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer;  // null when the folder has none
  tokenizer::FolderChatTemplate chat;                     // tokenizer_config.json's template
  Provenance provenance;                                  // of the model as loaded
};

class ModelCache {
 public:
  explicit ModelCache(std::size_t capacity = 2) : m_capacity(capacity) {}

  // Loads on first use; `model` is a folder or Org/Name[@revision] in the local Hugging Face
  // cache (model::resolveModelFolder). Throws studio::Error for a bad folder, device or dtype.
  CachedModel get(const std::string& model, const std::string& device, const std::string& dtype);
  void clear();

 private:
  struct Entry {
    std::string key;
    CachedModel value;
  };
  std::mutex m_mutex;
  std::size_t m_capacity;
  std::vector<Entry> m_entries;  // most recently used last
};

// The tokenizer.json of a model folder, or null when there is none.
std::shared_ptr<const tokenizer::Tokenizer> loadFolderTokenizer(const std::string& dir);

}  // namespace studio::engine

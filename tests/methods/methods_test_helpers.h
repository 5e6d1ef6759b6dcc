#pragma once
// Shared pieces of the method tests: the tiny model folder, run specs over it, and an event sink
// that keeps everything.

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/events.h"
#include "core/engine/run_executor.h"
#include "core/engine/run_spec.h"
#include "core/model/model_config.h"
#include "core/model/model_loader.h"
#include "support/full_logits.h"
#include "support/tiny_model_folder.h"

namespace studio::methods_test {

using test::fullLogits;

// The method tests' model: the shared tiny folder (support/tiny_model_folder.h) with its matrices
// scaled by 4 unless told otherwise, so that attention is sharp enough for qTTT's updates to show.
class TinyModelFolder : public test::TinyModelFolder {
 public:
  explicit TinyModelFolder(const std::string& tag, std::uint64_t seed = 7, double scale = 4.0)
      : test::TinyModelFolder(tag, seed, scale) {}
  // The folder loaded afresh (f32, CPU).
  std::shared_ptr<model::LoadedModel> load() const { return model::loadModel(path()); }
};

// A fresh, process-unique temp path (not created).
std::filesystem::path tempPath(const std::string& tag);

// A run of `method` on a short document whose needle "K7Q" is the target.
engine::RunSpec tinySpec(const std::string& model_dir, const std::string& method,
                         nlohmann::json params = nlohmann::json::object());

class CollectingSink : public engine::EventSink {
 public:
  void runStarted(const engine::RunSpec& spec) override { started = spec; }
  void event(const engine::Event& event) override {
    events.push_back(event);
    if (on_event) on_event(event);
  }
  void runFinished(const engine::RunResult& result) override { finished = result; }

  template <typename T>
  std::vector<T> all() const {
    std::vector<T> out;
    for (const auto& event : events) {
      if (const T* typed = std::get_if<T>(&event)) out.push_back(*typed);
    }
    return out;
  }

  engine::RunSpec started;
  std::vector<engine::Event> events;
  engine::RunResult finished;
  std::function<void(const engine::Event&)> on_event;
};

}  // namespace studio::methods_test

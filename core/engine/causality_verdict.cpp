#include "core/engine/causality_verdict.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/common/error.h"
#include "core/common/file_fingerprint.h"
#include "core/model/atomic_file_writer.h"
#include "core/model/causality_check.h"
#include "core/model/model_loader.h"

namespace studio::engine {

namespace {

namespace fs = std::filesystem;

nlohmann::json readVerdicts(const std::string& file) {
  std::ifstream in(file);
  nlohmann::json cache = nlohmann::json::parse(in, nullptr, false);
  return cache.is_object() ? cache : nlohmann::json::object();
}

}  // namespace

CausalityVerdict checkModelCausality(const std::string& model_dir, const std::string& cache_file,
                                     std::uint64_t max_bytes) {
  CausalityVerdict verdict;
  try {
    std::vector<std::string> weights;
    for (const auto& entry : fs::directory_iterator(model_dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".safetensors") {
        weights.push_back(entry.path().string());
      }
    }
    if (weights.empty()) {
      verdict.detail = "no safetensors weights to check";
      return verdict;
    }
    std::sort(weights.begin(), weights.end());
    std::vector<std::string> files = {(fs::path(model_dir) / "config.json").string()};
    files.insert(files.end(), weights.begin(), weights.end());
    std::uint64_t bytes = 0;
    for (const std::string& w : weights) bytes += fs::file_size(w);
    if (bytes > max_bytes) {
      verdict.detail = "weights over " + std::to_string(max_bytes >> 20) +
                       " MiB are not loaded twice: run studio-cli check-causality --model " +
                       model_dir;
      return verdict;
    }
    const std::string fingerprint = filesFingerprint(files);
    const nlohmann::json known = readVerdicts(cache_file);
    if (known.contains(fingerprint) && known[fingerprint].is_object()) {
      const std::string state = known[fingerprint].value("state", "");
      if (state == "passed" || state == "failed") {
        verdict.state = state == "passed" ? CausalityVerdict::State::Passed
                                          : CausalityVerdict::State::Failed;
        verdict.detail = known[fingerprint].value("detail", "");
        verdict.cached = true;
        return verdict;
      }
    }
    const auto loaded = model::loadModel(model_dir);
    torch::NoGradGuard no_grad;
    const model::CausalityReport report = model::checkCausality(*loaded->lm, 64);
    std::ostringstream detail;
    if (report.passed) {
      verdict.state = CausalityVerdict::State::Passed;
      detail << "the first " << report.perturbed_from << " of " << report.length
             << " positions kept their outputs bit-identical when the rest changed";
    } else {
      verdict.state = CausalityVerdict::State::Failed;
      detail << "position " << report.first_leak << "'s " << report.quantity << " changed through the "
             << report.path << " when only positions from " << report.perturbed_from
             << " on did (max |delta logit| " << report.max_difference
             << "): the model reads the future";
    }
    verdict.detail = detail.str();
    nlohmann::json cache = readVerdicts(cache_file);  // another window may have written meanwhile
    cache[fingerprint] = {{"state", report.passed ? "passed" : "failed"},
                          {"detail", verdict.detail},
                          {"model", model_dir}};
    const fs::path parent = fs::path(cache_file).parent_path();
    if (!parent.empty()) fs::create_directories(parent);
    model::writeFileAtomically(cache_file, cache.dump(1));
  } catch (const Error& error) {
    verdict.state = CausalityVerdict::State::Error;
    verdict.detail = error.what();
  } catch (const std::exception& error) {
    verdict.state = CausalityVerdict::State::Error;
    verdict.detail = error.what();
  }
  return verdict;
}

}  // namespace studio::engine

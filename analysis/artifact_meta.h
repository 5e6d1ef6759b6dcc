#pragma once
// An artifact's meta_json read with its fields checked: a session written by another version, or
// edited by hand, may hold a field of the wrong type, and that must become a studio::Error naming
// the run and the field ("run 3: cache_read.meta.cached[2]: must be an integer"), which the views
// show and studio-cli prints, never an exception the window cannot catch.

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/run_trace.h"
#include "core/common/json_exact.h"

namespace studio::analysis {

// Reads while `run` and `artifact` live. Fields nested in the meta are named by their path from it
// ("rollouts[1].reward"); the top-level object's path is "".
class ArtifactMeta {
 public:
  // Throws studio::Error (Session) when the meta is not a JSON object.
  ArtifactMeta(const RunTrace& run, const engine::ArtifactEvent& artifact);

  // A field of the meta that must be there, of type T (an integer type, double, bool or
  // std::string); or that may be left out, and is of type T when it is there.
  template <class T>
  T required(const std::string& key) const {
    return required<T>(m_meta, "", key);
  }
  template <class T>
  T optional(const std::string& key, T fallback) const {
    return optional<T>(m_meta, "", key, std::move(fallback));
  }
  // A field that must be a JSON array (of `length` elements unless length < 0), or that may be
  // left out (then an empty array).
  const nlohmann::json& array(const std::string& key, std::int64_t length = -1) const;
  const nlohmann::json& optionalArray(const std::string& key, std::int64_t length = -1) const;

  // The same for field `key` of `object`, found at `path`.
  template <class T>
  T required(const nlohmann::json& object, const std::string& path, const std::string& key) const {
    return as<T>(member(object, path, key), join(path, key));
  }
  template <class T>
  T optional(const nlohmann::json& object, const std::string& path, const std::string& key,
             T fallback) const {
    return objectAt(object, path).contains(key) ? required<T>(object, path, key) : fallback;
  }
  const nlohmann::json& member(const nlohmann::json& object, const std::string& path,
                               const std::string& key) const;

  // `value`, found at `path`, as T; as an array (of `length` elements unless length < 0); as an
  // object; as an array of integers.
  template <class T>
  T as(const nlohmann::json& value, const std::string& path) const {
    if constexpr (std::is_same_v<T, bool>) {
      if (!value.is_boolean()) malformed(path, "must be true or false");
    } else if constexpr (std::is_integral_v<T>) {
      if (const std::string fault = integerFault<T>(value); !fault.empty()) malformed(path, fault);
    } else if constexpr (std::is_floating_point_v<T>) {
      // nlohmann writes a NaN (a diverged run's loss) as null.
      if (value.is_null()) return std::numeric_limits<T>::quiet_NaN();
      if (!value.is_number()) malformed(path, "must be a number");
    } else {
      static_assert(std::is_same_v<T, std::string>, "ArtifactMeta reads numbers, bools and strings");
      if (!value.is_string()) malformed(path, "must be a string");
    }
    return value.get<T>();
  }
  const nlohmann::json& arrayAt(const nlohmann::json& value, const std::string& path,
                                std::int64_t length = -1) const;
  const nlohmann::json& objectAt(const nlohmann::json& value, const std::string& path) const;
  std::vector<std::int64_t> integersAt(const nlohmann::json& value, const std::string& path) const;

  // Throws studio::Error (Session): "run N: <artifact>.meta.<path>: <why>".
  [[noreturn]] void malformed(const std::string& path, const std::string& why) const;

 private:
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  const RunTrace& m_run;
  const engine::ArtifactEvent& m_artifact;
  nlohmann::json m_meta;
};

// Throws studio::Error (Session): "run N: <artifact>.<field>: <why>" (field "data", "shape", ...).
[[noreturn]] void malformedArtifact(const RunTrace& run, const engine::ArtifactEvent& artifact,
                                    const std::string& field, const std::string& why);

// "cached[2]"
std::string elementPath(const std::string& array, std::size_t index);

}  // namespace studio::analysis

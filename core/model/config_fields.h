#pragma once
// Typed, bounded reading of config.json fields, shared by every model family's parser. An absent
// field and an explicit null are the same (transformers writes `"head_dim": null` for "derive
// it"); a present field of the wrong type is an error naming it, never silently the default.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace studio::model {

// Far above any released model, far below where the arithmetic on shapes could overflow.
inline constexpr std::int64_t kMaxVocab = std::int64_t{1} << 31;
inline constexpr std::int64_t kMaxWidth = std::int64_t{1} << 20;  // hidden, intermediate
inline constexpr std::int64_t kMaxHeads = std::int64_t{1} << 14;
inline constexpr std::int64_t kMaxHeadDim = std::int64_t{1} << 14;
inline constexpr std::int64_t kMaxLayers = std::int64_t{1} << 14;
inline constexpr std::int64_t kMaxPositions = std::int64_t{1} << 40;
inline constexpr std::int64_t kMaxTokenId = std::numeric_limits<std::int32_t>::max();
inline constexpr std::int64_t kMaxParameters = std::int64_t{1} << 50;

// Throws studio::Error (Config) naming `file` and `field`.
[[noreturn]] void configError(const std::string& file, const std::string& field,
                              const std::string& what);

// A double as JSON writes it (the shortest text that reads back the same).
std::string formatNumber(double value);

// Writes eos_token_id (one id, a list, or nothing) and bos_token_id (nothing when negative) into a
// config.json object as transformers does, replacing what `out` held.
void writeSpecialTokenIds(nlohmann::json& out, const std::vector<std::int64_t>& eos_token_ids,
                          std::int64_t bos_token_id);

class FieldReader {
 public:
  FieldReader(const nlohmann::json& object, std::string file, std::string prefix)
      : m_object(object), m_file(std::move(file)), m_prefix(std::move(prefix)) {}

  const std::string& file() const { return m_file; }
  std::string name(const std::string& key) const { return m_prefix + key; }
  const nlohmann::json* find(const std::string& key) const;

  std::optional<std::int64_t> integer(const std::string& key, std::int64_t min,
                                      std::int64_t max) const;
  std::int64_t requiredInteger(const std::string& key, std::int64_t min, std::int64_t max) const;
  std::int64_t toInteger(const nlohmann::json& value, const std::string& field, std::int64_t min,
                         std::int64_t max) const;
  // A finite number (integers accepted: `"rope_theta": 10000`).
  std::optional<double> number(const std::string& key) const;
  double requiredNumber(const std::string& key) const;
  std::optional<bool> boolean(const std::string& key) const;
  std::optional<std::string> string(const std::string& key) const;
  // An id or a list of ids (eos_token_id is either).
  std::vector<std::int64_t> tokenIds(const std::string& key) const;

 private:
  const nlohmann::json& m_object;
  std::string m_file;
  std::string m_prefix;
};

}  // namespace studio::model

#include "core/model/config_fields.h"

#include <cmath>

#include "core/common/error.h"
#include "core/common/bounded_json.h"

namespace studio::model {

using json = nlohmann::json;

void configError(const std::string& file, const std::string& field, const std::string& what) {
  throwError(ErrorKind::Config, file, field, what);
}

std::string formatNumber(double value) {
  json number = value;
  return number.dump();
}

const json* FieldReader::find(const std::string& key) const {
  const auto it = m_object.find(key);
  if (it == m_object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<std::int64_t> FieldReader::integer(const std::string& key, std::int64_t min,
                                                 std::int64_t max) const {
  const json* value = find(key);
  if (!value) return std::nullopt;
  return toInteger(*value, name(key), min, max);
}

std::int64_t FieldReader::requiredInteger(const std::string& key, std::int64_t min,
                                          std::int64_t max) const {
  const auto value = integer(key, min, max);
  if (!value) configError(m_file, name(key), "missing");
  return *value;
}

std::int64_t FieldReader::toInteger(const json& value, const std::string& field, std::int64_t min,
                                    std::int64_t max) const {
  if (!value.is_number_integer()) {
    configError(m_file, field, "must be an integer, got " + describeJson(value));
  }
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
    configError(m_file, field, value.dump() + " is larger than the limit " + std::to_string(max));
  }
  const auto number = value.get<std::int64_t>();
  if (number < min) {
    configError(m_file, field,
                "must be at least " + std::to_string(min) + ", got " + std::to_string(number));
  }
  if (number > max) {
    configError(m_file, field,
                std::to_string(number) + " is larger than the limit " + std::to_string(max));
  }
  return number;
}

std::optional<double> FieldReader::number(const std::string& key) const {
  const json* value = find(key);
  if (!value) return std::nullopt;
  if (!value->is_number()) {
    configError(m_file, name(key), "must be a number, got " + describeJson(*value));
  }
  const double number = value->get<double>();
  if (!std::isfinite(number)) configError(m_file, name(key), "must be finite");
  return number;
}

double FieldReader::requiredNumber(const std::string& key) const {
  const auto value = number(key);
  if (!value) configError(m_file, name(key), "missing");
  return *value;
}

std::optional<bool> FieldReader::boolean(const std::string& key) const {
  const json* value = find(key);
  if (!value) return std::nullopt;
  if (!value->is_boolean()) {
    configError(m_file, name(key), "must be true or false, got " + describeJson(*value));
  }
  return value->get<bool>();
}

std::optional<std::string> FieldReader::string(const std::string& key) const {
  const json* value = find(key);
  if (!value) return std::nullopt;
  if (!value->is_string()) {
    configError(m_file, name(key), "must be a string, got " + describeJson(*value));
  }
  return value->get<std::string>();
}

std::vector<std::int64_t> FieldReader::tokenIds(const std::string& key) const {
  const json* value = find(key);
  if (!value) return {};
  std::vector<std::int64_t> ids;
  if (value->is_array()) {
    for (std::size_t i = 0; i < value->size(); ++i) {
      ids.push_back(
          toInteger((*value)[i], name(key) + "[" + std::to_string(i) + "]", 0, kMaxTokenId));
    }
  } else if (value->is_number_integer()) {
    ids.push_back(toInteger(*value, name(key), 0, kMaxTokenId));
  } else {
    configError(m_file, name(key),
                "must be a token id or a list of token ids, got " + describeJson(*value));
  }
  return ids;
}

void writeSpecialTokenIds(nlohmann::json& out, const std::vector<std::int64_t>& eos_token_ids,
                          std::int64_t bos_token_id) {
  if (eos_token_ids.empty()) {
    out.erase("eos_token_id");
  } else if (eos_token_ids.size() == 1) {
    out["eos_token_id"] = eos_token_ids.front();
  } else {
    out["eos_token_id"] = eos_token_ids;
  }
  if (bos_token_id >= 0) {
    out["bos_token_id"] = bos_token_id;
  } else {
    out.erase("bos_token_id");
  }
}

}  // namespace studio::model

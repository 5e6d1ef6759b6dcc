#include "core/common/param_spec.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "core/common/error.h"
#include "core/common/json_exact.h"

namespace studio {

namespace {

using nlohmann::json;

std::string describe(const json& value) { return value.dump(); }

// Converts a command-line string to a number; nullopt when it is not one.
std::optional<double> parseNumber(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<double> asNumber(const json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) return parseNumber(value.get<std::string>());
  return std::nullopt;
}

// An Int parameter's value: a JSON integer as it is, a string of digits exactly, or a whole number
// written otherwise ("1e3", 4.0) when 64 bits hold it. Going through a double would round
// 9007199254740993 and cast 1e300 out of range (undefined behaviour). nullopt for anything else;
// `out_of_range` says whether it was a whole number past 64 bits.
std::optional<std::int64_t> asInteger(const json& value, bool& out_of_range) {
  out_of_range = false;
  if (value.is_number_integer()) {
    out_of_range = !holdsExactly<std::int64_t>(value);
    if (out_of_range) return std::nullopt;
    return value.get<std::int64_t>();
  }
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    std::int64_t exact = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), exact);
    if (error == std::errc() && end == text.data() + text.size()) return exact;
  }
  const auto number = asNumber(value);
  if (!number || std::floor(*number) != *number) return std::nullopt;
  // The doubles an int64 holds: [-2^63, 2^63).
  constexpr double kTwoToThe63 = 9223372036854775808.0;
  out_of_range = *number < -kTwoToThe63 || *number >= kTwoToThe63;
  if (out_of_range) return std::nullopt;
  return static_cast<std::int64_t>(*number);
}

void checkRange(const std::string& field, const ParamSpec& spec, double value) {
  if ((spec.min && value < *spec.min) || (spec.max && value > *spec.max)) {
    std::ostringstream range;
    range << "[" << (spec.min ? std::to_string(*spec.min) : std::string("-inf")) << ", "
          << (spec.max ? std::to_string(*spec.max) : std::string("inf")) << "]";
    throwArgument(field, "value " + std::to_string(value) + " is outside " + range.str());
  }
}

json resolveOne(const std::string& field, const ParamSpec& spec, const json& given) {
  switch (spec.type) {
    case ParamSpec::Type::Int: {
      bool out_of_range = false;
      const auto integer = asInteger(given, out_of_range);
      if (!integer) {
        throwArgument(field, std::string(out_of_range ? "expected a 64-bit integer, got "
                                                      : "expected an integer, got ") +
                                 describe(given));
      }
      checkRange(field, spec, static_cast<double>(*integer));
      return *integer;
    }
    case ParamSpec::Type::Float: {
      const auto number = asNumber(given);
      if (!number) throwArgument(field, "expected a number, got " + describe(given));
      checkRange(field, spec, *number);
      return *number;
    }
    case ParamSpec::Type::Bool: {
      if (given.is_boolean()) return given;
      if (given.is_string()) {
        const auto text = given.get<std::string>();
        if (text == "true" || text == "1" || text == "yes" || text == "on") return true;
        if (text == "false" || text == "0" || text == "no" || text == "off") return false;
      }
      if (given.is_number_integer()) return given.get<std::int64_t>() != 0;
      throwArgument(field, "expected true or false, got " + describe(given));
    }
    case ParamSpec::Type::String: {
      if (given.is_string()) return given;
      throwArgument(field, "expected a string, got " + describe(given));
    }
    case ParamSpec::Type::Choice: {
      for (const json& choice : spec.choices) {
        if (choice == given) return choice;
        // Numbers given as strings on the command line match numeric choices by value.
        const auto a = asNumber(choice);
        const auto b = asNumber(given);
        if (choice.is_number() && a && b && std::abs(*a - *b) <= 1e-12 * std::abs(*a)) {
          return choice;
        }
        if (choice.is_string() && given.is_string() && choice == given) return choice;
      }
      std::string allowed;
      for (const json& choice : spec.choices) {
        allowed += (allowed.empty() ? "" : ", ") + describe(choice);
      }
      throwArgument(field, describe(given) + " is not one of " + allowed);
    }
  }
  throwArgument(field, "unknown parameter type");
}

}  // namespace

const char* paramTypeName(ParamSpec::Type type) {
  switch (type) {
    case ParamSpec::Type::Int: return "int";
    case ParamSpec::Type::Float: return "float";
    case ParamSpec::Type::Bool: return "bool";
    case ParamSpec::Type::String: return "string";
    case ParamSpec::Type::Choice: return "choice";
  }
  return "unknown";
}

json resolveParams(const std::string& owner, const std::vector<ParamSpec>& specs,
                   const json& given) {
  if (!given.is_null() && !given.is_object()) {
    throwArgument(owner, "parameters must be a JSON object, got " + describe(given));
  }
  json resolved = json::object();
  for (const ParamSpec& spec : specs) {
    const std::string field = owner + "." + spec.name;
    if (given.is_object() && given.contains(spec.name)) {
      resolved[spec.name] = resolveOne(field, spec, given.at(spec.name));
    } else {
      resolved[spec.name] = spec.default_value;
    }
  }
  if (given.is_object()) {
    for (const auto& [name, value] : given.items()) {
      if (!resolved.contains(name)) {
        std::string known;
        for (const ParamSpec& spec : specs) known += (known.empty() ? "" : ", ") + spec.name;
        throwArgument(owner + "." + name,
                      "unknown parameter (known: " + (known.empty() ? "none" : known) + ")");
      }
    }
  }
  return resolved;
}

json parseKeyValues(const std::vector<std::string>& pairs) {
  json out = json::object();
  for (const std::string& pair : pairs) {
    const auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      throwArgument("--set", "expected key=value, got '" + pair + "'");
    }
    out[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return out;
}

json paramSpecsToJson(const std::vector<ParamSpec>& specs) {
  json out = json::array();
  for (const ParamSpec& spec : specs) {
    json item = {{"name", spec.name},
                 {"type", paramTypeName(spec.type)},
                 {"default", spec.default_value},
                 {"help", spec.help},
                 {"log_scale", spec.log_scale}};
    if (spec.min) item["min"] = *spec.min;
    if (spec.max) item["max"] = *spec.max;
    if (!spec.choices.empty()) item["choices"] = spec.choices;
    if (!spec.suggestions.empty()) item["suggestions"] = spec.suggestions;
    out.push_back(item);
  }
  return out;
}

}  // namespace studio

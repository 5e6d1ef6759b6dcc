#pragma once
// A declared parameter of a method or a task. The command line (`--set key=value`) and the UI
// (forms) are built from these declarations, and values are validated against them.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace studio {

struct ParamSpec {
  enum class Type { Int, Float, Bool, String, Choice };

  std::string name;
  Type type = Type::Float;
  nlohmann::json default_value;         // always set; its JSON type matches `type`
  std::optional<double> min;            // Int and Float: inclusive range
  std::optional<double> max;
  std::vector<nlohmann::json> choices;  // Choice: the allowed values (numbers or strings)
  std::string help;
  bool log_scale = false;               // a UI hint for learning rates and the like
  // Int and Float: values worth trying (a paper's grid). Forms offer them and help lists them;
  // any value in range is accepted. Its initializer lets a spec's braces end before it without
  // -Wextra's missing-initializer warning.
  std::vector<double> suggestions = {};
};

const char* paramTypeName(ParamSpec::Type type);

// Fills defaults and checks every value of `given` against `specs`: unknown names, wrong types,
// values out of range or not among the choices give an Argument error naming `owner.name`.
// Strings from the command line ("3", "1e-5", "true") are converted to the declared type.
nlohmann::json resolveParams(const std::string& owner, const std::vector<ParamSpec>& specs,
                             const nlohmann::json& given);

// Parses "key=value" pairs from the command line into a JSON object of strings.
nlohmann::json parseKeyValues(const std::vector<std::string>& pairs);

// The declarations as JSON, for `--help`-style listings and for the UI.
nlohmann::json paramSpecsToJson(const std::vector<ParamSpec>& specs);

}  // namespace studio

#pragma once
// Reading a JSON value as a C++ type only when it holds that type without a conversion. nlohmann's
// get<T>() truncates 1.5 to 1, wraps -1 into an unsigned and casts 1e300 to an integer (undefined
// behaviour): a hand-edited file must be refused instead, naming its field.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/common/error.h"

namespace studio {

// Whether `value` is what T reads without a conversion: booleans are booleans, integers are
// integers in T's range. Other types (strings, floating point) are left to get<T>(), which throws
// on a wrong JSON type.
template <typename T>
bool holdsExactly(const nlohmann::json& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value.is_boolean();
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    return value.is_number_unsigned() &&
           value.get<std::uint64_t>() <= std::numeric_limits<T>::max();
  } else if constexpr (std::is_integral_v<T>) {
    if (!value.is_number_integer()) return false;
    if (value.is_number_unsigned()) {
      return value.get<std::uint64_t>() <=
             static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    }
    const std::int64_t number = value.get<std::int64_t>();
    return number >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
           number <= static_cast<std::int64_t>(std::numeric_limits<T>::max());
  } else {
    return true;
  }
}

// What keeps `value` from being read as the integer type T, for a reader's own error: "must be an
// integer", or "is 18446744073709551615, outside [-9223372036854775808, 9223372036854775807]" for
// an integer T cannot hold (get<T>() would wrap it). Empty when T holds it.
template <typename T>
std::string integerFault(const nlohmann::json& value) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "an integer type");
  if (!value.is_number_integer()) return "must be an integer";
  if (holdsExactly<T>(value)) return {};
  return "is " + value.dump() + ", outside [" + std::to_string(std::numeric_limits<T>::min()) +
         ", " + std::to_string(std::numeric_limits<T>::max()) + "]";
}

namespace json_exact_detail {
template <typename T>
struct VectorElement {
  using type = void;
};
template <typename E>
struct VectorElement<std::vector<E>> {
  using type = E;
};
}  // namespace json_exact_detail

// `value` as T (a std::vector<E>: each element as E), or an Argument error naming `field`:
// "expected <expected>, got <value>".
template <typename T>
T jsonAs(const nlohmann::json& value, const std::string& field, const char* expected) {
  using Element = typename json_exact_detail::VectorElement<T>::type;
  bool exact = true;
  if constexpr (std::is_void_v<Element>) {
    exact = holdsExactly<T>(value);
  } else if (value.is_array()) {
    for (const nlohmann::json& element : value) exact = exact && holdsExactly<Element>(element);
  }
  try {
    if (exact) return value.get<T>();
  } catch (const nlohmann::json::exception&) {
  }
  throwArgument(field, std::string("expected ") + expected + ", got " + value.dump());
}

}  // namespace studio

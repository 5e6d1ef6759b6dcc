#pragma once
// How an event kind describes itself (DESIGN.md: a new diagnostic is its struct plus one
// description of its fields). Every kind of engine::Event has
//
//   static constexpr const char* kKind = "fast_weight_loss";   // its name in sessions and logs
//   static constexpr const char* kTable = "fast_weight_losses"; // the session table storing it
//   static constexpr auto fields() { return std::make_tuple(field("layer", &X::layer), ...); }
//
// and storing, loading, JSON and CSV export (sessions/event_codec.h) and run traces
// (analysis/run_trace.h) are written once over that description. A kind without it does not
// compile there: nothing is dropped silently.
//
// A field's name is its column and its key in exports; `field(name, column, member)` stores it
// under another column (tables older than the description). Member types: bool, int,
// std::int64_t, double, std::string, an enum with EnumNames (stored by name), std::vector<double>
// and std::vector<std::int64_t> (stored as JSON arrays), std::vector<float> (a float32 blob), and
// a JSON document held in a std::string (`jsonField`: exported parsed).

#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace studio::engine {

enum class FieldFormat { Plain, JsonText };

template <typename Event, typename T, FieldFormat Format = FieldFormat::Plain>
struct EventField {
  using Type = T;
  static constexpr FieldFormat format = Format;
  const char* name;
  const char* column;
  T Event::*member;
};

template <typename Event, typename T>
constexpr EventField<Event, T> field(const char* name, T Event::*member) {
  return {name, name, member};
}

template <typename Event, typename T>
constexpr EventField<Event, T> field(const char* name, const char* column, T Event::*member) {
  return {name, column, member};
}

// A std::string member holding a JSON document (kept as text, exported as JSON).
template <typename Event>
constexpr EventField<Event, std::string, FieldFormat::JsonText> jsonField(
    const char* name, const char* column, std::string Event::*member) {
  return {name, column, member};
}

// The names an enum is stored and exported by: a specialisation per enum with
//   static constexpr std::pair<E, const char*> values[] = {{E::A, "a"}, ...};
template <typename E>
struct EnumNames;

template <typename T, typename = void>
struct HasEnumNames : std::false_type {};
template <typename T>
struct HasEnumNames<T, std::void_t<decltype(EnumNames<T>::values)>> : std::true_type {};

template <typename E>
const char* enumName(E value) {
  for (const auto& [known, name] : EnumNames<E>::values) {
    if (known == value) return name;
  }
  return "unknown";
}

template <typename E>
std::optional<E> enumFromName(std::string_view name) {
  for (const auto& [known, known_name] : EnumNames<E>::values) {
    if (name == known_name) return known;
  }
  return std::nullopt;
}

// Calls visit(field, value) for every described field of `event`, in order; `value` is a
// reference to the member (const when `event` is).
template <typename Event, typename Visit>
void forEachField(Event& event, Visit&& visit) {
  using Plain = std::remove_const_t<Event>;
  std::apply([&](const auto&... f) { (visit(f, event.*(f.member)), ...); }, Plain::fields());
}

}  // namespace studio::engine

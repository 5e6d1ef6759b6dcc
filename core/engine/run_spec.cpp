#include "core/engine/run_spec.h"

#include <type_traits>

#include "core/common/error.h"
#include "core/common/json_exact.h"

namespace studio::engine {

namespace {

using nlohmann::json;

json spansToJson(const std::vector<Span>& spans) {
  json out = json::array();
  for (const Span& span : spans) out.push_back({{"start", span.start}, {"end", span.end}});
  return out;
}

std::vector<Span> spansFromJson(const json& value, const std::string& field) {
  std::vector<Span> spans;
  if (value.is_null()) return spans;
  if (!value.is_array()) throwArgument(field, "expected an array of {start, end}");
  for (const json& item : value) {
    if (!item.is_object() || !item.contains("start") || !item.contains("end") ||
        !holdsExactly<std::int64_t>(item["start"]) || !holdsExactly<std::int64_t>(item["end"])) {
      throwArgument(field, "expected {\"start\": int, \"end\": int}, got " + item.dump());
    }
    Span span{item["start"].get<std::int64_t>(), item["end"].get<std::int64_t>()};
    if (span.start < 0 || span.end < span.start) {
      throwArgument(field, "invalid span [" + std::to_string(span.start) + ", " +
                               std::to_string(span.end) + ")");
    }
    spans.push_back(span);
  }
  return spans;
}

// What a field of type T must hold, for the error.
template <typename T>
constexpr const char* expectedOf() {
  if constexpr (std::is_same_v<T, bool>) {
    return "true or false";
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    return "a non-negative integer";
  } else if constexpr (std::is_integral_v<T>) {
    return "an integer";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "a number";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "a string";
  } else {
    static_assert(std::is_same_v<T, std::vector<std::string>>);
    return "an array of strings";
  }
}

// in[key] into `out`; absent or null keeps out's default.
template <typename T>
void read(const json& in, const char* key, T& out) {
  if (!in.contains(key) || in[key].is_null()) return;
  out = jsonAs<T>(in[key], std::string("run_spec.") + key, expectedOf<T>());
}

// The task_meta keys the studio writes and reads back (sweeps, the learning-rate selection, sample
// logs); the rest of task_meta is the task's own and is kept as it is.
struct TypedKey {
  const char* name;
  bool (json::*is)() const noexcept;
  const char* expected;
};
constexpr TypedKey kTaskMetaKeys[] = {
    {"item_id", &json::is_string, "a string"},
    {"sweep_key", &json::is_string, "a string"},
    {"sweep_label", &json::is_string, "a string"},
    {"sweep_length", &json::is_number_integer, "an integer"},
    {"lr_validation_of", &json::is_string, "a string"},
    {"selected_lr", &json::is_number, "a number"},
};

json taskMetaFromJson(const json& meta) {
  if (!meta.is_object()) throwArgument("run_spec.task_meta", "expected a JSON object");
  for (const TypedKey& key : kTaskMetaKeys) {
    if (meta.contains(key.name) && !(meta[key.name].*key.is)()) {
      throwArgument(std::string("run_spec.task_meta.") + key.name,
                    std::string("expected ") + key.expected + ", got " + meta[key.name].dump());
    }
  }
  return meta;
}

json paramsFromJson(const json& params) {
  if (!params.is_object()) throwArgument("run_spec.params", "expected a JSON object");
  // Every method's learning rate is a number; a sweep selects among them by value.
  if (params.contains("lr") && !params["lr"].is_number()) {
    throwArgument("run_spec.params.lr", "expected a number, got " + params["lr"].dump());
  }
  return params;
}

}  // namespace

json taskMetaOfItem(const json& item_meta) {
  json meta = item_meta;  // an object: TaskItem::meta
  for (const TypedKey& key : kTaskMetaKeys) meta.erase(key.name);
  return meta;
}

json RunSpec::toJson() const {
  json out = {{"model_path", model_path},
              {"device", device},
              {"dtype", dtype},
              {"document_source", document_source},
              {"document_text", document_text},
              {"question", question},
              {"task_description", task_description},
              {"target_chars", spansToJson(target_chars)},
              {"target_tokens", spansToJson(target_tokens)},
              {"reference_answers", reference_answers},
              {"scorer", scorer},
              {"task", task},
              {"task_meta", task_meta},
              {"method", method},
              {"params", params},
              {"seed", seed},
              {"max_answer_tokens", max_answer_tokens},
              {"chat", chat},
              {"rope", rope}};
  out["budget_flops"] = budget_flops ? json(*budget_flops) : json(nullptr);
  return out;
}

RunSpec RunSpec::fromJson(const json& in) {
  if (!in.is_object()) throwArgument("run_spec", "expected a JSON object");
  RunSpec spec;
  read(in, "model_path", spec.model_path);
  read(in, "device", spec.device);
  read(in, "dtype", spec.dtype);
  read(in, "document_source", spec.document_source);
  read(in, "document_text", spec.document_text);
  read(in, "question", spec.question);
  read(in, "task_description", spec.task_description);
  read(in, "reference_answers", spec.reference_answers);
  read(in, "scorer", spec.scorer);
  read(in, "task", spec.task);
  read(in, "method", spec.method);
  read(in, "seed", spec.seed);
  read(in, "max_answer_tokens", spec.max_answer_tokens);
  read(in, "chat", spec.chat);
  if (spec.chat != "model" && spec.chat != "none") {
    throwArgument("run_spec.chat", "must be \"model\" or \"none\", got \"" + spec.chat + "\"");
  }
  read(in, "rope", spec.rope);
  if (in.contains("task_meta") && !in["task_meta"].is_null()) {
    spec.task_meta = taskMetaFromJson(in["task_meta"]);
  }
  if (in.contains("params") && !in["params"].is_null()) spec.params = paramsFromJson(in["params"]);
  if (in.contains("budget_flops") && !in["budget_flops"].is_null()) {
    read(in, "budget_flops", spec.budget_flops.emplace());
  }
  spec.target_chars = spansFromJson(in.value("target_chars", json()), "run_spec.target_chars");
  spec.target_tokens = spansFromJson(in.value("target_tokens", json()), "run_spec.target_tokens");
  return spec;
}

}  // namespace studio::engine

#include "harness/isolation/worker_protocol.hpp"

#include <array>
#include <functional>

namespace vlb {
namespace {
constexpr std::array<std::pair<protocol::CallKind, std::string_view>, 4> kCallKinds = {{
    {protocol::CallKind::kCalibration, "calibration"},
    {protocol::CallKind::kRound, "round"},
    {protocol::CallKind::kWarmup, "warmup"},
    {protocol::CallKind::kTimed, "timed"},
}};
}  // namespace

std::string_view protocol::call_kind_name(CallKind kind) {
  for (const auto& [value, name] : kCallKinds) {
    if (value == kind) return name;
  }
  return "unknown";
}

void JsonCodec<protocol::CallKind>::read(const JsonValue& node, protocol::CallKind& kind) {
  read_json_by_name(node, kind, [](const std::string& name) {
    for (const auto& [value, spelled] : kCallKinds) {
      if (spelled == name) return value;
    }
    throw InputError("must be calibration, round, warmup or timed, got '" + name + "'");
  });
}

std::string protocol::span_name(const std::string& name) {
  if (name.size() <= kMaxSpanNameChars) return name;
  return fmt::format("{}...#{:016x}", name.substr(0, kMaxSpanNameChars - 21), std::hash<std::string>{}(name));
}

std::string protocol::message_type(const JsonDocument& body) {
  if (!body.is_object()) return "";
  const auto found = body.find("type");
  return found != body.end() && found->is_string() ? found->get<std::string>() : "";
}

}  // namespace vlb

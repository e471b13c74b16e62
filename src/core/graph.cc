#include "engram/graph.h"

namespace engram {

std::string_view ToString(EntityKind kind) {
  switch (kind) {
    case EntityKind::kUser:
      return "user";
    case EntityKind::kPerson:
      return "person";
    case EntityKind::kPlace:
      return "place";
    case EntityKind::kOrganization:
      return "organization";
    case EntityKind::kPet:
      return "pet";
    case EntityKind::kProject:
      return "project";
    case EntityKind::kProduct:
      return "product";
  }
  return "person";
}

std::optional<EntityKind> ParseEntityKind(std::string_view text) {
  // Models and callers spell kinds several ways; each spelling maps to one kind.
  static constexpr std::pair<std::string_view, EntityKind> kNames[] = {
      {"user", EntityKind::kUser},
      {"person", EntityKind::kPerson},
      {"people", EntityKind::kPerson},
      {"place", EntityKind::kPlace},
      {"location", EntityKind::kPlace},
      {"city", EntityKind::kPlace},
      {"country", EntityKind::kPlace},
      {"organization", EntityKind::kOrganization},
      {"organisation", EntityKind::kOrganization},
      {"org", EntityKind::kOrganization},
      {"company", EntityKind::kOrganization},
      {"pet", EntityKind::kPet},
      {"animal", EntityKind::kPet},
      {"project", EntityKind::kProject},
      {"task", EntityKind::kProject},
      {"product", EntityKind::kProduct},
      {"device", EntityKind::kProduct},
  };
  for (const auto& [name, kind] : kNames) {
    if (name == text) return kind;
  }
  return std::nullopt;
}

}  // namespace engram

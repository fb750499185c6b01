#include "hub/resolve.hpp"

namespace poslab::hub {

Result<std::filesystem::path> resolve_model_argument(std::string_view text, const NameResolution& how) {
  if (!looks_like_model_name(text)) return std::filesystem::path(std::string(text));
  auto name = parse_model_name(text);
  if (!name) return Error{name.error() + " (and no folder of that name exists)"};
  HubSettings settings = HubSettings::from_environment();
  if (!how.allow_download && !settings.offline) {
    settings.offline = true;
    auto plan = plan_fetch(*name, settings);
    if (!plan) return Error{name->text() + " is not in the cache yet" + (how.not_cached_hint.empty() ? "" : ": " + how.not_cached_hint)};
    return settings.cache.snapshot(*name, plan->commit);
  }
  FetchControl control;
  control.progress = how.progress;
  control.waiting = how.waiting;
  auto plan = plan_fetch(*name, settings, control);
  if (!plan) return Error{plan.error() + " (no folder named " + std::string(text) + " exists either)"};
  for (const auto& note : plan->notes)
    if (how.note) how.note(note);
  if (!plan->files.empty() && how.starting) how.starting(*plan);
  auto folder = run_fetch(*plan, settings, control);
  if (!plan->files.empty() && how.finished) how.finished();
  return folder;
}

}  // namespace poslab::hub

#include "cli/args.hpp"

#include <cstdio>

#include "core/options.hpp"
#include "core/session.hpp"

namespace poslab {

int usage_error(const std::string& message) {
  std::fprintf(stderr, "poslab: %s\nTry 'poslab --help'.\n", message.c_str());
  return kUsageError;
}

int runtime_error(const std::string& message) {
  std::fprintf(stderr, "poslab: error: %s\n", message.c_str());
  return kRuntimeError;
}

Result<std::string_view> ArgParser::value_of(std::string_view name, std::string_view inline_value, bool has_inline) {
  if (has_inline) return inline_value;
  if (done()) return Error{std::string(name) + " needs a value"};
  return next();
}

ParsedOption split_option(std::string_view arg) {
  const auto eq = arg.find('=');
  if (arg.starts_with("--") && eq != std::string_view::npos) return {arg.substr(0, eq), arg.substr(eq + 1), true};
  return {arg, {}, false};
}

namespace {

std::optional<Status> try_session_option(State& state, ArgParser& p, const ParsedOption& opt) {
  if (opt.name != "--session") return std::nullopt;
  auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
  if (!v) return Status(Error{v.error()});
  auto loaded = load_session(std::string(*v));
  if (!loaded) return Status(Error{loaded.error()});
  for (const auto& key : loaded->unknown_keys)
    std::fprintf(stderr, "poslab: %s: ignoring unknown key \"%s\"\n", std::string(*v).c_str(), key.c_str());
  state = loaded->state;
  return Status(Ok{});
}

}  // namespace

std::optional<Status> try_state_option(State& state, ArgParser& p, const ParsedOption& opt) {
  if (auto session = try_session_option(state, p, opt)) return session;
  const StateOption* so = find_state_option(opt.name);
  if (!so) return std::nullopt;
  if (so->value.empty()) {
    if (opt.has_inline) return Status(Error{std::string(opt.name) + " takes no value"});
    return so->apply(state, "");
  }
  auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
  if (!v) return Status(Error{v.error()});
  return so->apply(state, *v);
}

Result<Language> parse_language(std::string_view v) {
  if (v == "en") return Language::En;
  if (v == "ja") return Language::Ja;
  return Error{"--lang expects en or ja, got \"" + std::string(v) + "\""};
}

}  // namespace poslab

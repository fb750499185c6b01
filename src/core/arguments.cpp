#include "core/arguments.hpp"

#include <algorithm>
#include <cstdio>

#include "base/memory.hpp"
#include "core/options.hpp"
#include "core/session.hpp"

namespace poslab {

Result<std::string_view> ArgParser::value_of(std::string_view name, std::string_view inline_value, bool has_inline) {
  if (has_inline) return inline_value;
  if (done()) return Error{std::string(name) + " needs a value"};
  return next();
}

namespace {

// An argument split at its first '=' when it is "--name=value".
struct ParsedOption {
  std::string_view name, inline_value;
  bool has_inline = false;
};

ParsedOption split_option(std::string_view arg) {
  const auto eq = arg.find('=');
  if (arg.starts_with("--") && eq != std::string_view::npos) return {arg.substr(0, eq), arg.substr(eq + 1), true};
  return {arg, {}, false};
}

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

// Applies `opt` if it is a state option or --session (FILE replaces the whole state with the
// file's; options after it refine it); nullopt when it is neither.
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

// Options every command takes whatever it does: --memory-limit SIZE, the budget every big run is
// checked against before it starts (base/memory.hpp).
std::optional<Status> try_process_option(ArgParser& p, const ParsedOption& opt) {
  if (opt.name != "--memory-limit") return std::nullopt;
  auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
  if (!v) return Status(Error{v.error()});
  auto bytes = parse_memory_size(std::string(*v));
  if (!bytes) return Status(Error{bytes.error()});
  set_memory_limit(*bytes, "--memory-limit " + std::string(*v));
  return Status(Ok{});
}

const Flag* find_flag(const std::vector<Flag>& flags, std::string_view name) {
  // A checkpoint has no name, and no argument reaches it.
  const auto it = std::find_if(flags.begin(), flags.end(), [&](const Flag& f) { return !f.name.empty() && f.name == name; });
  return it == flags.end() ? nullptr : &*it;
}

// The flags that must be given and were not, in the order they are declared: the first one's message.
Status check_required(const std::vector<Flag>& flags, const std::vector<const Flag*>& seen) {
  for (const Flag& f : flags)
    if (f.required && std::find(seen.begin(), seen.end(), &f) == seen.end()) return Error{f.required()};
  return Ok{};
}

}  // namespace

Status ArgParser::parse(const std::vector<Flag>& flags, State* state, const UnknownOption& unknown, ParseOrder order) {
  std::vector<std::pair<const Flag*, std::string_view>> given;
  while (!done()) {
    const ParsedOption opt = split_option(next());
    if (auto applied = try_process_option(*this, opt)) {
      if (!*applied) return *applied;
      continue;
    }
    if (state) {
      if (auto applied = try_state_option(*state, *this, opt)) {
        if (!*applied) {
          file_failed = opt.name == "--session" || opt.name == "--model" || opt.name == "--model-config";
          return *applied;
        }
        continue;
      }
    }
    const Flag* flag = find_flag(flags, opt.name);
    if (!flag) return Error{unknown(opt.name)};
    std::string_view value;
    if (!flag->takes_value()) {
      if (opt.has_inline) return Error{std::string(opt.name) + " takes no value"};
    } else {
      auto v = value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return Error{v.error()};
      value = *v;
    }
    if (order == ParseOrder::AsGiven && flag->apply)
      if (auto s = flag->apply(value); !s) return s;
    given.emplace_back(flag, value);
  }
  // The state options together, whatever their order: one that needs a model folder, or that
  // --no-positions contradicts, is refused by every command alike.
  if (state)
    if (auto s = check_given_state_options([this](std::string_view name) { return flag_given(*this, name); }, *state); !s) return s;
  std::vector<const Flag*> seen;
  for (const auto& g : given) seen.push_back(g.first);
  if (order == ParseOrder::AsGiven) return check_required(flags, seen);
  // Names first: each flag in turn, its missing value or its values reported in that order.
  for (const Flag& f : flags) {
    if (f.name.empty()) {
      if (auto s = f.apply(""); !s) return s;
      continue;
    }
    std::vector<std::string_view> values;
    for (const auto& [flag, value] : given)
      if (flag == &f) values.push_back(value);
    if (values.empty()) {
      if (f.required) return Error{f.required()};
      continue;
    }
    if (!f.apply) continue;
    if (!f.repeated) values.erase(values.begin(), values.end() - 1);  // the last one wins
    for (std::string_view v : values)
      if (auto s = f.apply(v); !s) return s;
  }
  return Ok{};
}

void ArgParser::peek(const std::vector<Flag>& flags) const {
  ArgParser copy = *this;
  while (!copy.done()) {
    const ParsedOption opt = split_option(copy.next());
    const StateOption* so = find_state_option(opt.name);
    const Flag* flag = find_flag(flags, opt.name);
    const bool takes_value = opt.name == "--session" || opt.name == "--memory-limit" || (so && !so->value.empty()) ||
                             (!so && flag && flag->takes_value());
    std::string_view value;
    if (takes_value && !opt.has_inline) {
      if (copy.done()) return;
      value = copy.next();
    } else {
      value = opt.inline_value;
    }
    if (!so && flag && flag->apply) (void)flag->apply(value);
  }
}

Flag checkpoint(std::function<Status()> check) {
  return {"", "", "", [check = std::move(check)](std::string_view) { return check(); }};
}

Flag needed(Flag flag, std::string message) {
  flag.required = [message = std::move(message)] { return message; };
  return flag;
}

Flag needed(Flag flag, std::function<std::string()> message) {
  flag.required = std::move(message);
  return flag;
}

Flag text_flag(std::string_view name, std::string_view value, std::string help, std::string& into) {
  return {name, value, std::move(help), [&into](std::string_view v) -> Status {
            into = std::string(v);
            return Ok{};
          }};
}

Flag text_flag(std::string_view name, std::string_view value, std::string help, std::optional<std::string>& into) {
  return {name, value, std::move(help), [&into](std::string_view v) -> Status {
            into = std::string(v);
            return Ok{};
          }};
}

Flag integer_flag(std::string_view name, std::string_view value, std::string help, long long lo, long long hi, int& into) {
  help += " (" + std::to_string(lo) + " to " + std::to_string(hi) + ")";
  return {name, value, std::move(help), [name, lo, hi, &into](std::string_view v) -> Status {
            auto n = parse_integer(v, name, lo, hi);
            if (!n) return Error{n.error()};
            into = static_cast<int>(*n);
            return Ok{};
          }};
}

bool flag_given(const ArgParser& p, std::string_view name) {
  return std::any_of(p.args.begin(), p.args.end(), [&](std::string_view a) { return split_option(a).name == name; });
}

Status check_index(std::string_view flag, long long value, long long count, std::string_view what) {
  if (value >= 0 && value < count) return Ok{};
  const std::string range = count > 0 ? " (0 to " + std::to_string(count - 1) + ")" : "";
  return Error{std::string(flag) + " " + std::to_string(value) + " is out of range: there are " + std::to_string(count) +
               " " + std::string(what) + range};
}

}  // namespace poslab

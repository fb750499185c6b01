#include "cli/help.hpp"

#include <algorithm>

#include "cli/command_table.hpp"
#include "core/options.hpp"

namespace poslab {

namespace {

constexpr std::size_t kWidth = 100;            // columns the usage and the prose are wrapped to
constexpr std::string_view kUsageIndent = "  ";  // "  poslab …" (manpage.sh reads these indents)
constexpr std::string_view kUsageMore = "         ";
constexpr std::string_view kAboutIndent = "      ";
constexpr std::string_view kFlagIndent = "        ";
constexpr std::size_t kFlagHelpColumn = 36;    // where a flag's help starts, unless its name and value reach it

// Columns a text takes in a terminal: its code points (every character here is one column wide).
std::size_t columns(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// A text's blank-separated parts; with `groups`, a bracketed group of a usage ("[--embeddings F |
// --model DIR]", "(--mp4 F | --gif F)") kept whole.
std::vector<std::string> parts_of(std::string_view text, bool groups) {
  std::vector<std::string> parts;
  std::string part;
  int depth = 0;
  for (char c : text) {
    if (groups) depth += (c == '[' || c == '(') - (c == ']' || c == ')');
    if (c == ' ' && depth == 0) {
      if (!part.empty()) parts.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  if (!part.empty()) parts.push_back(part);
  return parts;
}

// `parts` joined by blanks into lines of at most kWidth columns, the first after `first`, the
// others after `more`.
std::string wrap(const std::vector<std::string>& parts, std::string_view first, std::string_view more) {
  std::string out, line(first);
  bool empty = true;
  for (const std::string& part : parts) {
    if (!empty && columns(line) + 1 + columns(part) > kWidth) {
      out += line + "\n";
      line = std::string(more);
      empty = true;
    }
    line += (empty ? "" : " ") + part;
    empty = false;
  }
  return out + line + "\n";
}

// A flag as the usage writes it: plain when it must be given, else in brackets; "…" when it repeats.
std::string usage_of(const Flag& f) {
  const std::string one = std::string(f.name) + (f.takes_value() ? " " + std::string(f.value) : "");
  if (f.required) return f.repeated ? one + " [" + one + " …]" : one;
  return "[" + one + (f.repeated ? " …]" : "]");
}

// "        --name VALUE    what it does".
std::string flag_line(const Flag& f) {
  std::string left = std::string(kFlagIndent) + std::string(f.name) + (f.takes_value() ? " " + std::string(f.value) : "");
  const std::size_t width = columns(left);
  left += width + 2 <= kFlagHelpColumn ? std::string(kFlagHelpColumn - width, ' ') : "  ";
  return left + f.help + "\n";
}

// One command: its usage (its words, what it needs, its flags, the state options after those it
// must be given), what it does, and a line per flag. `view` is what a VIEW stands for.
std::string command_block(const Command& c, std::string_view view) {
  std::vector<std::string_view> words = c.words;
  std::replace(words.begin(), words.end(), kViewWord, view);
  const FlagTable table = c.flags(words.size() > 1 ? words[1] : view);
  std::vector<std::string> usage = {"poslab"};
  for (std::string_view w : words) usage.emplace_back(w);
  for (std::string& part : parts_of(c.operands, true)) usage.push_back(std::move(part));
  bool state_said = !c.state_options;
  std::string flags;
  for (const Flag& f : table.flags) {
    if (f.name.empty()) continue;  // a checkpoint
    if (!f.required && !state_said) usage.emplace_back("[state options]");
    state_said = state_said || !f.required;
    usage.push_back(usage_of(f));
    flags += flag_line(f);
  }
  if (!state_said) usage.emplace_back("[state options]");
  return wrap(usage, kUsageIndent, kUsageMore) + wrap(parts_of(c.about, false), kAboutIndent, kAboutIndent) + flags;
}

// What the whole help says after the commands: what every command shares.
constexpr std::string_view kShared =
    "sessions: --session FILE starts from a saved state (options after it refine it);\n"
    "          export's --save-session FILE writes the state it used\n"
    "memory:   --memory-limit SIZE (512M, 8G; any command) caps what a run may take; a run that\n"
    "          would need more is refused first, saying which option lowers it (default: half\n"
    "          of this machine's memory)\n"
    "models:   --model ORG/NAME[@REVISION] (any command that takes --model DIR) opens a model of\n"
    "          the Hugging Face Hub from its cache ($HF_HUB_CACHE, $HF_HOME/hub or\n"
    "          ~/.cache/huggingface/hub), downloading what is missing from $HF_ENDPOINT\n"
    "          ($HF_TOKEN for gated models; HF_HUB_OFFLINE=1: the cache only)\n";

}  // namespace

std::string help_text() {
  std::string text = "PosLab " POSLAB_VERSION " — a lab for transformer positional encodings and attention\n\nusage:\n";
  for (const Command& c : command_table()) text += command_block(c, kViewWord) + "\n";
  text += "  poslab --help | --version\n\n";
  return text + std::string(kShared) + "\nstate options:\n" + state_options_help();
}

std::string command_help(const std::vector<std::string_view>& words) {
  const std::vector<const Command*> named = commands_named(words);
  if (named.empty()) return {};
  const std::string_view view = words.size() > 1 ? words[1] : kViewWord;
  std::string text = "usage:\n";
  bool state_options = false;
  for (std::size_t k = 0; k < named.size(); ++k) {
    text += (k ? "\n" : "") + command_block(*named[k], view);
    state_options = state_options || named[k]->state_options;
  }
  return state_options ? text + "\nstate options:\n" + state_options_help() : text;
}

}  // namespace poslab

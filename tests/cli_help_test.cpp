// The command line's help against its parsers. Every command's flags are rows of the command table
// (src/cli/command_table.hpp); the help is written from them. These tests read the rows, run the
// poslab binary, and check that each flag has its words, that every flag a command's --help lists
// is one its parser takes (and asks a value of exactly when the help shows one), that a flag of
// another command is refused, and that the whole help names every flag of every command.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/command_table.hpp"
#include "core/options.hpp"
#include "shell.hpp"

namespace poslab {
namespace {

using test_support::RunResult;

RunResult run(const std::string& args) {
  return test_support::run_shell("timeout -k 10 60 " + std::string(POSLAB_BINARY) + " " + args + " 2>&1 </dev/null");
}

// `poslab ARGS` (blank-separated words) in this process, as app/main.cpp runs it, stdout and stderr
// together. For the hundreds of command lines that end in their parser before any work: a process
// each would take minutes. One that would open the window fails the test instead.
RunResult run_here(const std::string& args) {
  std::vector<std::string> words = {"poslab"};
  std::istringstream in(args);
  for (std::string w; in >> w;) words.push_back(w);
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  FILE* out = std::tmpfile();
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = ::dup(1), saved_err = ::dup(2);
  ::dup2(::fileno(out), 1);
  ::dup2(::fileno(out), 2);
  bool window = false;
  RunResult r;
  r.exit_code = run_command_line(static_cast<int>(argv.size()), argv.data(), [&window](const GuiOptions&) {
    window = true;
    return 0;
  });
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  std::rewind(out);
  std::array<char, 4096> buffer{};
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), out)) r.output.append(buffer.data(), n);
  std::fclose(out);
  EXPECT_FALSE(window) << "poslab " << args << " opened the window";
  return r;
}

// The views a row's VIEW stands for.
std::vector<std::string_view> views_of(const Command& c) {
  std::vector<std::string_view> views;
  for (const ViewInfo& v : view_registry())
    if (c.view_word(v.name)) views.push_back(v.name);
  return views;
}

// A command's words as the user types them: a VIEW as each view it stands for.
std::vector<std::string> typed_words(const Command& c) {
  std::vector<std::string> typed = {""};
  for (std::string_view w : c.words) {
    std::vector<std::string> longer;
    for (const std::string& t : typed)
      for (std::string_view word : w == kViewWord ? views_of(c) : std::vector<std::string_view>{w})
        longer.push_back(t + (t.empty() ? "" : " ") + std::string(word));
    typed = longer;
  }
  return typed;
}

// The second word a row's flags are asked for: a VIEW as each view (and kViewWord: all of them).
std::vector<std::string_view> flag_words(const Command& c) {
  if (c.words.size() < 2) return {kViewWord};
  if (c.words[1] != kViewWord) return {c.words[1]};
  std::vector<std::string_view> words = views_of(c);
  words.push_back(kViewWord);
  return words;
}

// One command's part of a help: its words, its usage (continuation lines joined) and its flags.
struct Block {
  std::string words;  // "export attention": the usage's words before the first option or operand
  std::string usage;
  std::vector<std::string> flags;  // "--name" or "--name VALUE", as listed
};

std::vector<Block> blocks_of(const std::string& help) {
  std::vector<Block> blocks;
  std::istringstream in(help);
  bool in_usage = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "usage:") in_usage = true;
    if (line.starts_with("sessions:") || line.starts_with("state options:")) in_usage = false;
    if (!in_usage) continue;
    if (line.starts_with("  poslab ")) {
      if (line.starts_with("  poslab --help")) continue;
      Block b{"", line.substr(2), {}};
      std::istringstream usage(b.usage.substr(7));
      for (std::string w; usage >> w && !w.starts_with("-") && !w.starts_with("[");)
        b.words += (b.words.empty() ? "" : " ") + w;
      blocks.push_back(b);
    } else if (!blocks.empty() && line.starts_with("         ") && blocks.back().flags.empty()) {
      blocks.back().usage += " " + line.substr(line.find_first_not_of(' '));
    } else if (!blocks.empty() && line.starts_with("        --")) {
      // "--name VALUE   what it does" or "--name   what it does": the name and value end at two blanks.
      blocks.back().flags.push_back(line.substr(8, line.find("  ", 8) - 8));
    }
  }
  return blocks;
}

std::string name_of(const std::string& listed) { return listed.substr(0, listed.find(' ')); }

// (a) Every flag row of every command says what it does, on one line, and a value's placeholder
// that reads as one.
TEST(CliHelp, EveryFlagRowHasItsHelpAndPlaceholder) {
  int rows = 0;
  for (const Command& c : command_table())
    for (std::string_view word : flag_words(c)) {
      const FlagTable table = c.flags(word);
      for (const Flag& f : table.flags) {
        if (f.name.empty()) continue;  // a checkpoint, no flag
        ++rows;
        std::string where = std::string(f.name) + " of poslab";
        for (std::string_view w : c.words) where += " " + std::string(w == kViewWord ? word : w);
        EXPECT_TRUE(f.name.starts_with("--")) << where;
        // A word first: an integer flag's help is its words and then its range, " (1 to 8)".
        EXPECT_TRUE(!f.help.empty() && std::isalnum(static_cast<unsigned char>(f.help[0]))) << where << " has no help: \"" << f.help << "\"";
        EXPECT_EQ(f.help.find('\n'), std::string::npos) << where << ": its help is one line";
        EXPECT_EQ(f.value.find(' '), std::string::npos) << where << ": a placeholder is one word";
        EXPECT_FALSE(f.value.starts_with("-")) << where << ": a placeholder is no option";
        EXPECT_EQ(f.takes_value(), !f.value.empty()) << where;
      }
    }
  EXPECT_GT(rows, 60);
}

// (b) For every command, each flag its --help lists is taken by its parser: asked without a value,
// one listed with a placeholder says it "needs a value" and a switch given "=x" that it "takes no
// value" (messages only the parser's walk over a flag it knows gives, before any work). And every
// flag of another command that this one does not list is refused (exit 2, not asked for a value).
TEST(CliHelp, EveryFlagACommandListsIsOneItsParserTakesAndNoOther) {
  const RunResult whole = run("--help");
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  // Every flag a command has: those the whole help lists and those of the rows, whatever it lists.
  std::set<std::string> every_flag;
  for (const Block& b : blocks_of(whole.output))
    for (const std::string& f : b.flags) every_flag.insert(name_of(f));
  for (const Command& c : command_table())
    for (std::string_view word : flag_words(c))
      for (const Flag& f : c.flags(word).flags)
        if (!f.name.empty()) every_flag.insert(std::string(f.name));
  std::set<std::string> state_names = {"--session"};
  for (const StateOption& o : state_options()) state_names.insert(std::string(o.name));

  int commands = 0, taken = 0, refused = 0;
  std::set<std::string> seen;  // export attention: the view's row, its animation's and the model's
  for (const Command& c : command_table())
    for (const std::string& words : typed_words(c)) {
      if (!seen.insert(words).second) continue;
      // What `poslab WORDS --help` lists (the GUI: its block of `poslab --help`, the one without words).
      std::vector<Block> blocks;
      bool takes_state = c.state_options;
      if (words.empty()) {
        for (const Block& b : blocks_of(whole.output))
          if (b.words.empty()) blocks.push_back(b);
      } else {
        const RunResult help = run(words + " --help");
        ASSERT_EQ(help.exit_code, 0) << words << "\n" << help.output;
        blocks = blocks_of(help.output);
        takes_state = help.output.find("\nstate options:\n") != std::string::npos;
      }
      ASSERT_FALSE(blocks.empty()) << "poslab " << words << " --help lists no command";
      ++commands;
      std::set<std::string> listed;
      for (const Block& b : blocks) {
        // The animation is the export whose arguments hold --animate.
        const bool animation = std::any_of(b.flags.begin(), b.flags.end(), [](const std::string& f) { return f.starts_with("--animate "); });
        for (const std::string& f : b.flags) {
          listed.insert(name_of(f));
          const bool value = f.find(' ') != std::string::npos;
          const std::string line = b.words + (animation && name_of(f) != "--animate" ? " --animate x " : " ") + name_of(f) + (value ? "" : "=x");
          const RunResult r = run_here(line);
          EXPECT_EQ(r.exit_code, 2) << "poslab " << line << "\n" << r.output;
          EXPECT_NE(r.output.find(name_of(f) + (value ? " needs a value" : " takes no value")), std::string::npos)
              << "poslab " << line << "\n" << r.output;
          ++taken;
        }
      }
      for (const std::string& f : every_flag) {
        if (listed.contains(f) || (takes_state && state_names.contains(f))) continue;
        const RunResult r = run_here(words + " " + f);
        EXPECT_EQ(r.exit_code, 2) << "poslab " << words << " " << f << "\n" << r.output;
        EXPECT_EQ(r.output.find("needs a value"), std::string::npos) << "poslab " << words << " takes " << f << "\n" << r.output;
        ++refused;
      }
    }
  EXPECT_GT(commands, 30);
  EXPECT_GT(taken, 200);
  EXPECT_GT(refused, 1000);
}

// (c) `poslab --help` names every flag of every command, as its row says it, and each command's
// own --help lists its flags, with the state options exactly when it takes them.
TEST(CliHelp, TheWholeHelpAndEachCommandsHelpNameEveryFlag) {
  const RunResult whole = run("--help");
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  for (const Command& c : command_table())
    for (std::string_view word : flag_words(c)) {
      const FlagTable table = c.flags(word);
      for (const Flag& f : table.flags) {
        if (f.name.empty()) continue;
        const std::string line = "\n        " + std::string(f.name) + (f.takes_value() ? " " + std::string(f.value) : "") + "  ";
        EXPECT_NE(whole.output.find(line), std::string::npos) << f.name << " of " << word << " is not in poslab --help";
        const auto at = whole.output.find(line);
        if (at != std::string::npos) {
          EXPECT_NE(whole.output.find(f.help, at), std::string::npos) << f.name << "'s help is not in poslab --help";
        }
      }
    }
  for (const Command& c : command_table())
    for (const std::string& words : typed_words(c)) {
      if (words.empty()) continue;
      const RunResult help = run(words + " --help");
      const std::string second = words.find(' ') == std::string::npos ? std::string(kViewWord) : words.substr(words.find(' ') + 1);
      const FlagTable table = c.flags(c.words.size() > 1 ? std::string_view(second) : kViewWord);
      for (const Flag& f : table.flags) {
        if (f.name.empty()) continue;
        EXPECT_NE(help.output.find("\n        " + std::string(f.name)), std::string::npos)
            << "poslab " << words << " --help lacks " << f.name << "\n" << help.output;
      }
      if (!c.state_options) continue;
      EXPECT_NE(help.output.find("\nstate options:\n"), std::string::npos) << words;
    }
  // The commands that take no state options say none.
  for (const char* words : {"train", "eval", "tokens", "papers check", "export paper", "export training", "export extrapolation"}) {
    const RunResult help = run(std::string(words) + " --help");
    EXPECT_EQ(help.output.find("state options:"), std::string::npos) << words;
    EXPECT_EQ(help.output.find("--embeddings"), std::string::npos) << words;
  }
}

// The usage is written from the rows: a flag that must be given plain, another in brackets.
TEST(CliHelp, TheUsageSaysWhichFlagsMustBeGiven) {
  const RunResult train = run("train --help");
  ASSERT_EQ(train.exit_code, 0);
  EXPECT_NE(train.output.find("poslab train [--task copy|recall|reverse]"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find(" --out DIR "), std::string::npos) << train.output;
  EXPECT_EQ(train.output.find("[--out DIR]"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("[--layers N]"), std::string::npos) << train.output;
  const RunResult tokens = run("tokens --help");
  EXPECT_NE(tokens.output.find("poslab tokens --tokenizer tokenizer.json --sentence TEXT [--sentence TEXT …]"), std::string::npos)
      << tokens.output;
  const RunResult all = run("export all --help");
  EXPECT_NE(all.output.find("poslab export all --dir DIR [state options] [--save-session FILE] [--scale N]"), std::string::npos)
      << all.output;
  // Per view: --head-dim for frequencies, --html for attention and heads, --step and --lang for the tour.
  EXPECT_NE(run("export frequencies --help").output.find("[--head-dim N]"), std::string::npos);
  EXPECT_EQ(run("export patterns --help").output.find("--head-dim"), std::string::npos);
  EXPECT_NE(run("export heads --help").output.find("[--html FILE]"), std::string::npos);
  EXPECT_EQ(run("export magnitude --help").output.find("--html"), std::string::npos);
  const RunResult tour = run("export tour --help");
  EXPECT_NE(tour.output.find("[--step N] [--lang en|ja]"), std::string::npos) << tour.output;
}

}  // namespace
}  // namespace poslab

#pragma once
// The command line's commands, a row each: the words that name it, the prose of its help, its
// flags and what runs it. The help (cli/help.hpp), the choice of what runs (cli.cpp) and the tests
// read this one table, so a command's help cannot leave out a flag its parser takes.
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.hpp"

namespace poslab {

// The word of a row that stands for a view (`export VIEW`): by default any view drawn from the
// embeddings, those of poslab export all.
inline constexpr std::string_view kViewWord = "VIEW";
bool is_view_word(std::string_view word);
// The views an animation draws: any view export draws from the embeddings or a model, but the tour.
bool is_animated_view(std::string_view word);

struct Command {
  std::vector<std::string_view> words;  // "export", "attention"; none: the GUI
  // What the usage says between the words and the flags that is no flag of the command's own: the
  // state options this use of it needs (--model DIR --layer L), arguments that are no option ([ID …]).
  std::string operands;
  std::string about;  // what it does: the prose about no single flag
  // Its flags; `word` is its second word, a VIEW as the view it stands for (kViewWord itself: every
  // such view's flags together).
  FlagTable (*flags)(std::string_view word) = nullptr;
  bool state_options = false;          // it takes the state options (and --session)
  int (*run)(ArgParser& p) = nullptr;  // `p` after the words; null: the window, which run_command_line opens
  bool (*view_word)(std::string_view word) = is_view_word;  // the names a VIEW among its words stands for
};

// Every command, in the order the help lists them.
const std::vector<Command>& command_table();

// The row the arguments name: the one with the most words that the arguments start with (the first
// such on a tie); the GUI's when their first word begins no command; null when it begins one but
// no row matches (`export nonsense`).
const Command* command_for(const std::vector<std::string_view>& args);

// The rows whose words start with `words` (`export` names every export); VIEW matches a view's name.
std::vector<const Command*> commands_named(const std::vector<std::string_view>& words);

// The most words a row has.
std::size_t longest_command();

}  // namespace poslab

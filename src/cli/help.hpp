#pragma once
// The command line's help, written from the command table (cli/command_table.hpp) and the state
// options (core/options.hpp): a command's usage, its flags and their words come from the rows its
// parser reads. packaging/manpage.sh turns `poslab --help` into the manual page by its layout:
//   "  poslab WORDS …"   a command's usage, continued on lines indented 9 spaces;
//   6 spaces             what it does;
//   8 spaces, "--"       one of its flags and what it does, after two spaces or more.
#include <string>
#include <string_view>
#include <vector>

namespace poslab {

// poslab --help: every command, the sessions, memory and models paragraphs, the state options.
std::string help_text();

// poslab COMMAND … --help: the commands `words` name (export attention: the view, its animation
// and the model's layer), with the state options when one of them takes them; empty when no
// command has those words.
std::string command_help(const std::vector<std::string_view>& words);

}  // namespace poslab

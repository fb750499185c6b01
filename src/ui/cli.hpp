#pragma once
// The command line: the GUI by default, `poslab export VIEW …` headless.
namespace poslab {

int run_command_line(int argc, char** argv);

}  // namespace poslab

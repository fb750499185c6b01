#pragma once
// The training commands: poslab train, poslab eval, poslab export extrapolation (`poslab train
// --help` and the others say their flags). Each reads the arguments after its name from `p` and
// returns the process's exit status (0, 1 for a failure, 2 for a usage error).
#include "cli/args.hpp"

namespace poslab {

int run_train(ArgParser& p);
int run_eval(ArgParser& p);
int run_export_extrapolation(ArgParser& p);

// Their flags, for the help.
FlagTable train_flag_table();
FlagTable eval_flag_table();
FlagTable extrapolation_flag_table();

}  // namespace poslab

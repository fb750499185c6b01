#pragma once
// The training commands (arguments after the command's name):
//   poslab train --task copy|recall --encoding none|sinusoidal|learned|rope|alibi|t5 [--layers N]
//       [--width N] [--heads N] [--train-length N] [--steps N] [--batch N] [--lr X] [--seed N]
//       [--vocab N] --out DIR [--log F.csv]
//   poslab eval --model DIR --task copy|recall --lengths 32,64,128 [--rope-scaling KIND] [--csv F]
//   poslab export extrapolation --models DIR,DIR,... --task copy --lengths ... --png F [--csv F]
// Each reads the arguments after its name from `p` and returns the process's exit status (0, 1
// for a failure, 2 for a usage error).
#include "cli/args.hpp"

namespace poslab {

int run_train(ArgParser& p);
int run_eval(ArgParser& p);
int run_export_extrapolation(ArgParser& p);

}  // namespace poslab

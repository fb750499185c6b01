#pragma once
// The command line's side of models named on the Hub: downloads reported on stderr, and
// `poslab export training`.
#include "cli/args.hpp"
#include "figures/hub_resolver.hpp"  // install_command_line_resolver

namespace poslab {

// export training --model ORG/NAME --revisions R,R,... --layer L [--sentence S] [--csv F] [--png F] [--svg F] [--scale N]
int run_export_training(ArgParser& p);
FlagTable training_flag_table();

}  // namespace poslab

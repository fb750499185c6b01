#pragma once
// The command line's side of models named on the Hub: downloads reported on stderr, and
// `poslab export training`.
#include "cli/args.hpp"

namespace poslab {

// The command line's model resolver (core/model_resolver.hpp), installed once at start-up: a
// --model ORG/NAME missing from the cache is downloaded, reporting on stderr: a bar redrawn in
// place on a terminal, plain lines (one per file) otherwise.
void install_command_line_resolver();

// export training --model ORG/NAME --revisions R,R,... --layer L [--sentence S] [--csv F] [--png F] [--svg F] [--scale N]
int run_export_training(ArgParser& p);

}  // namespace poslab

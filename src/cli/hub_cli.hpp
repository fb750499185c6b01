#pragma once
// The command line's side of models named on the Hub: downloads reported on stderr, and
// `poslab export training`.
#include "cli/args.hpp"

namespace poslab {

// From now on, a --model ORG/NAME that downloads reports on stderr: a bar redrawn in place on a
// terminal, plain lines (one per file) otherwise.
void report_downloads_on_stderr();

// export training --model ORG/NAME --revisions R,R,... --layer L [--sentence S] [--csv F] [--png F] [--svg F] [--scale N]
int run_export_training(ArgParser& p);

}  // namespace poslab

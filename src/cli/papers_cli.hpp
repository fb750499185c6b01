#pragma once
// "Papers, checked" on the command line (arguments after the command's words):
//   poslab papers                                        lists the checks
//   poslab papers check [ID…] [--model DIR] [--json F]   runs them: 0 when every one is reproduced, 1 when one differs
//   poslab export paper --id ID [--model DIR] --png F [--svg F] [--csv F]   draws one check's figure
#include "cli/args.hpp"

namespace poslab {

int run_papers(ArgParser& p);
int run_export_paper(ArgParser& p);

}  // namespace poslab

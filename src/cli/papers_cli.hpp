#pragma once
// "Papers, checked" on the command line (arguments after the command's words):
//   poslab papers                                        lists the checks
//   poslab papers check [ID…] [--model DIR] [--json F]   runs them: 0 when every one is reproduced, 1 when one differs
//   poslab export paper --id ID [--model DIR] --png F [--svg F] [--csv F]   draws one check's figure
#include "cli/args.hpp"

namespace poslab {

int run_papers(ArgParser& p);        // after "papers"
int run_papers_check(ArgParser& p);  // after "papers check"
int run_export_paper(ArgParser& p);  // after "export paper"

// Their flags, for the help.
FlagTable papers_check_flag_table();
FlagTable export_paper_flag_table();

}  // namespace poslab

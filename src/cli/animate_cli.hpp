#pragma once
// `poslab export VIEW [state options] --animate PARAM --from A --to B --frames N [--fps F]
// (--mp4 F | --gif F | --frames-dir D) [--scale N]`: a sweep of one state option as a video, a
// GIF or numbered PNG frames, each frame the still `poslab export VIEW --PARAM v_k --png` writes.
#include <string>

#include "cli/args.hpp"
#include <string_view>
#include <vector>

namespace poslab {

// Whether the arguments after `export` ask for an animation (they hold --animate).
bool is_animation_request(const std::vector<std::string_view>& args);

// Runs the export; `p` is at the arguments after `export`, the view first. Returns the exit code.
int run_animation_export(ArgParser& p);

// What the help says the animation does (its flags say the rest), with the parameters it sweeps.
std::string animation_help();

// Its flags, for the help.
FlagTable animation_flag_table();

}  // namespace poslab

#pragma once
// What was computed and how: backend, renderer, timings, the GPU–CPU check, the dog comparison.
#include "core/state.hpp"
#include "core/workspace.hpp"

namespace poslab {

void draw_info_panel(const State& state, const Workspace& workspace, const std::string& renderer);

}  // namespace poslab

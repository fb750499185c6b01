#pragma once
// The frequencies view: the wavelength 2π/θᵢ of every RoPE pair against the context length,
// before and after the context scaling of the state.
#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

class Workspace;

// The rotary width of a head of width d_h under these settings.
int frequencies_rotary_dim(const ModelSettings& settings, int head_dim);

// The figure for a rotary width; `sequence_length` only matters to dynamic NTK.
plot::LinePlotFigure frequencies_figure(const ModelSettings& settings, int rotary_dim, int sequence_length,
                                        float width, float height);
// The same, its plotting area as large as fits `room` (points).
plot::LinePlotFigure frequencies_figure_to_fill(const ModelSettings& settings, int rotary_dim, int sequence_length,
                                                plot::Point room, Overflow overflow = Overflow::Shrink);

}  // namespace poslab

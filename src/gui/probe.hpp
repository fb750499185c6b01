#pragma once
// What a scripted test reads of the window (`--probe FILE`): where the named controls are, in
// window pixels, which of them the mouse is over, and a few values (the tab shown, the tour's
// step, the status line, the state). The file is rewritten atomically whenever what it says
// changes (every frame: it holds the frame's number), so that a test waits for a line to appear instead of sleeping for a guessed time, and
// clicks a control where it is drawn instead of at coordinates measured once.
//
// Format: one record per line, fields separated by tabs:
//   item  NAME  x0  y0  x1  y1     the control's rectangle (pixels from the window's top left),
//                                  then `disabled` when it ignores clicks (a job is running)
//   value KEY   TEXT               e.g. `value  tab  tour`, `value  hovered  tour: next`,
//                                  `value  frame  N` (the frame's number), `value  presses  N`
//                                  and `value  pressed  NAME` (the left button's presses seen,
//                                  and the control under the mouse at the last one)
#include <string>
#include <string_view>

namespace poslab::probe {

// Turns the probe on, writing to `path` (nothing is recorded while it is off).
void enable(std::string path);
bool enabled();

// Starts a frame's record; `pixels_per_unit` converts ImGui's units to the window's pixels.
void begin_frame(float pixels_per_unit);
// The rectangle of the last ImGui item, under `name`; also notes whether the mouse is over it.
void item(std::string_view name);
// A rectangle that is part of an item, in ImGui's screen units (a figure's cells, which a test
// aims at: the wheel zooms only over the heatmap's cells, a click picks the patch under it).
// Without `hover` it is only reported, never named as hovered (a figure's text, its panels).
void area(std::string_view name, float x0, float y0, float x1, float y1, bool hover = true);
// A value the window shows (newlines become spaces).
void value(std::string_view key, std::string_view text);
// Writes the file if this frame's record differs from the last one written.
void end_frame();

}  // namespace poslab::probe

#pragma once
// Rows of controls that wrap at the panel's right edge instead of running past it, so that a
// narrow window or a large UI scale never makes a tab scroll sideways. Widths are in screen
// units, measured with the current font and style.
#include <imgui.h>

namespace poslab::flow {

// The panel's visible right edge (screen x), whatever the content's width.
float right_edge();
// Puts the next item, `width` wide, beside the last one when it fits before the edge (with
// `spacing`, ImGui's default when negative), else at the start of a new line.
void same_line_if_fits(float width, float spacing = -1.0f);

// The width of a few kinds of item, for same_line_if_fits.
float label(const char* text);  // an item's label, with the gap before it
float button(const char* text);
float checkbox(const char* text);  // and a radio button
float text(const char* text);

// Text wrapped at the panel's visible edge. ImGui::TextWrapped wraps at the edge of the content
// (1.86: WorkRect), which in a panel that may scroll sideways is as wide as the widest thing drawn
// the frame before, so that one wide frame would keep the text, and the panel, wide for good.
void text_wrapped(const char* text);
// The same in the disabled colour (ImGui::TextDisabled never wraps).
void text_disabled_wrapped(const char* text);

}  // namespace poslab::flow

#pragma once
// The keyboard and mouse shortcuts, said once: the Shortcuts window (F1, or the bottom bar's
// button) lists this table, and the tooltips that name a key read it too.
#include <string_view>
#include <vector>

namespace poslab {

struct Shortcut {
  std::string_view keys;  // e.g. "Ctrl+E"
  std::string_view what;
};
const std::vector<Shortcut>& shortcuts();

// The window listing them; `open` is cleared when the reader closes it.
void draw_shortcuts_window(bool& open);

}  // namespace poslab

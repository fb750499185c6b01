#include "gui/show_figure.hpp"

#include <algorithm>

#include "gui/probe.hpp"

namespace poslab {

namespace {

FigurePlacement g_placement;  // the GUI is one thread; the report reads it after the views drew

}  // namespace

float screen_scale(const plot::FontSet& fonts) { return fonts.scale * ImGui::GetIO().FontGlobalScale; }

plot::Point figure_room(const plot::FontSet& fonts, float reserve_below) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float s = screen_scale(fonts);
  return {std::max(0.0f, avail.x / s), std::max(0.0f, (avail.y - reserve_below) / s)};
}

bool Refit::now(bool content_changed, plot::Point room) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const bool resizing = display.x != last_display_.x || display.y != last_display_.y;
  last_display_ = display;
  if (built_ && !content_changed && (same_room(room, built_room_) || resizing)) return false;
  built_ = true;
  built_room_ = room;
  return true;
}

ShownFigure show_figure(const plot::Figure& figure, plot::Point room, const plot::FontSet& fonts,
                        plot::TextureCache& textures, const char* id, Overflow overflow) {
  ShownFigure shown;
  float zoom = 1.0f;
  if (figure.width > room.x && figure.width > 0) zoom = room.x / figure.width;
  if (overflow == Overflow::Shrink && figure.height > room.y && figure.height > 0)
    zoom = std::min(zoom, room.y / figure.height);
  zoom = std::max(zoom, 0.05f);
  shown.scale = screen_scale(fonts) * zoom;
  shown.origin = ImGui::GetCursorScreenPos();
  plot::draw_figure(ImGui::GetWindowDrawList(), figure, shown.origin, shown.scale, fonts, textures,
                    probe::enabled() ? &shown.text_boxes : nullptr);
  const ImVec2 size(figure.width * shown.scale, figure.height * shown.scale);
  if (id) {
    ImGui::InvisibleButton(id, ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
    shown.hovered = ImGui::IsItemHovered();
  } else {
    ImGui::Dummy(size);
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  shown.mouse = {(mouse.x - shown.origin.x) / shown.scale, (mouse.y - shown.origin.y) / shown.scale};
  g_placement = {true, shown.origin, ImVec2(shown.origin.x + size.x, shown.origin.y + size.y), zoom};
  return shown;
}

void probe_box(std::string_view name, const ShownFigure& shown, const plot::Box& box, bool hover) {
  probe::area(name, shown.origin.x + box.x0 * shown.scale, shown.origin.y + box.y0 * shown.scale,
              shown.origin.x + box.x1 * shown.scale, shown.origin.y + box.y1 * shown.scale, hover);
}

void probe_layout(std::string_view prefix, const plot::Figure& figure, const ShownFigure& shown) {
  if (!probe::enabled()) return;
  const std::string p(prefix);
  for (std::size_t k = 0; k < figure.panels.size(); ++k) {
    const std::string panel = p + " panel " + std::to_string(k);
    probe_box(panel, shown, figure.panels[k].bounds, false);
    for (std::size_t a = 0; a < figure.panels[k].areas.size(); ++a)
      probe_box(panel + " area " + std::to_string(a), shown, figure.panels[k].areas[a], false);
  }
  for (std::size_t a = 0; a < figure.areas.size(); ++a)
    probe_box(p + " panel - area " + std::to_string(a), shown, figure.areas[a], false);
  for (std::size_t i = 0; i < figure.texts.size() && i < shown.text_boxes.size(); ++i) {
    const plot::TextItem& t = figure.texts[i];
    if (t.text.empty()) continue;
    const plot::Box& b = shown.text_boxes[i];
    const std::string panel = t.panel < 0 ? "-" : std::to_string(t.panel);
    probe::area(p + " text " + panel + " " + std::string(t.role) + ": " + t.text, b.x0, b.y0, b.x1, b.y1, false);
  }
}

const FigurePlacement& last_figure_placement() { return g_placement; }
void forget_figure_placement() { g_placement = {}; }

}  // namespace poslab

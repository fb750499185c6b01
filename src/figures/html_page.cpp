#include "figures/html_page.hpp"

#include <nlohmann/json.hpp>

#include "base/csv.hpp"
#include "figures/attention.hpp"
#include "plot/svg.hpp"

namespace poslab {

namespace {

using Json = nlohmann::ordered_json;

// At most this many cells (all panels' T² together) in one page: each is two numbers as text, and
// a page of tens of megabytes is no longer something a browser answers the pointer on.
constexpr std::size_t kMostCells = 2'000'000;

// Text as HTML element content: a model's description may hold "<" or "&".
std::string html_text(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '<' ? "&lt;" : ch == '>' ? "&gt;" : ch == '&' ? "&amp;" : std::string(1, ch);
  return out;
}

// One heatmap panel of a figure: where its cells are, and their values.
struct Panel {
  plot::Box box;
  int head = 0;
  std::string grid;  // "unchanged", "changed" or empty
  const Matrix* scores = nullptr;
  const Matrix* weights = nullptr;
  std::function<bool(int, int)> masked;
  std::vector<std::string> queries, keys;  // the rows' and columns' tokens
};

Json panel_json(const Panel& p) {
  const Eigen::Index rows = p.weights->rows(), cols = p.weights->cols();
  Json score = Json::array(), weight = Json::array(), masked = Json::array();
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) {
      const bool m = p.masked(static_cast<int>(i), static_cast<int>(j));
      masked.push_back(m ? 1 : 0);
      score.push_back(format_float((*p.scores)(i, j)));  // the CSV's text, shown as it is
      weight.push_back(format_float((*p.weights)(i, j)));
    }
  return {{"x", p.box.x0}, {"y", p.box.y0}, {"w", p.box.width()}, {"h", p.box.height()}, {"rows", rows}, {"cols", cols},
          {"head", p.head}, {"grid", p.grid}, {"queries", p.queries}, {"keys", p.keys}, {"score", score}, {"weight", weight}, {"masked", masked}};
}

// The page: a bar with the head selector and the pointer's cell, the views (one shown at a time,
// or one view whose panels the selector outlines), the data as JSON, and the script that reads it.
std::string page(const std::string& title, const std::vector<std::pair<std::string, std::string>>& views, const Json& panels, int heads,
                 bool outline, float width) {
  Json data = {{"title", title}, {"heads", heads}, {"outline", outline}, {"width", width}, {"views", panels}};
  std::string json = data.dump();
  // "</" inside a script element would end it: JSON allows the slash escaped.
  for (std::size_t at = json.find("</"); at != std::string::npos; at = json.find("</", at + 3)) json.replace(at, 2, "<\\/");
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_text(title) + "</title>\n<style>\n"
      "body{font-family:'DejaVu Sans',Verdana,sans-serif;margin:12px;color:#222}\n"
      "#bar{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #ddd;margin-bottom:8px}\n"
      "#info{margin-left:16px;font-family:'DejaVu Sans Mono',monospace}\n"
      ".view{position:relative;display:inline-block}.view svg{display:block}\n"
      ".mark{position:absolute;border:2px solid #e6550d;pointer-events:none}\n"
      "</style></head><body>\n<div id=\"bar\"><label>head <select id=\"head\"></select></label><span id=\"info\">point at a cell</span></div>\n";
  for (std::size_t v = 0; v < views.size(); ++v) {
    std::string svg = views[v].second;
    if (svg.rfind("<?xml", 0) == 0) svg.erase(0, svg.find('\n') + 1);  // a declaration belongs to a file, not inside a page
    html += "<div class=\"view\" data-view=\"" + std::to_string(v) + "\"" + (v == 0 ? "" : " style=\"display:none\"") + ">\n" + svg + "</div>\n";
  }
  html += "<script id=\"data\" type=\"application/json\">" + json + "</script>\n<script>\n" R"JS(
'use strict';
const data = JSON.parse(document.getElementById('data').textContent);
const select = document.getElementById('head'), info = document.getElementById('info');
const views = Array.from(document.querySelectorAll('.view'));
for (let h = 0; h < data.heads; ++h) select.add(new Option(String(h), String(h)));
function shown() { return data.outline ? 0 : Number(select.value); }
function update() {
  views.forEach((v, i) => { v.style.display = i === shown() ? 'inline-block' : 'none'; });
  document.querySelectorAll('.mark').forEach(m => m.remove());
  if (!data.outline) return;
  const view = views[0], svg = view.querySelector('svg'), scale = svg.getBoundingClientRect().width / data.width;
  for (const p of data.views[0]) if (p.head === Number(select.value)) {
    const m = document.createElement('div');
    m.className = 'mark';
    Object.assign(m.style, {left: (p.x * scale - 3) + 'px', top: (p.y * scale - 3) + 'px', width: (p.w * scale + 2) + 'px', height: (p.h * scale + 2) + 'px'});
    view.appendChild(m);
  }
}
function cellAt(event) {
  const v = shown(), svg = views[v].querySelector('svg'), r = svg.getBoundingClientRect(), scale = r.width / data.width;
  const x = (event.clientX - r.left) / scale, y = (event.clientY - r.top) / scale;
  for (const p of data.views[v]) {
    if (x < p.x || y < p.y || x >= p.x + p.w || y >= p.y + p.h) continue;
    const row = Math.floor((y - p.y) / p.h * p.rows), col = Math.floor((x - p.x) / p.w * p.cols);
    return {p, row, col, k: row * p.cols + col};
  }
  return null;
}
document.body.addEventListener('mousemove', event => {
  const c = cellAt(event);
  if (!c) return;
  const {p, row, col, k} = c;
  const where = 'head ' + p.head + (p.grid ? ' (' + p.grid + ')' : '') + ' · query ' + row + ' ' + JSON.stringify(p.queries[row]) +
                ' · key ' + col + ' ' + JSON.stringify(p.keys[col]) + ' · ';
  info.textContent = where + (p.masked[k] ? 'masked' : 'score ' + p.score[k] + ' · weight ' + p.weight[k]);
  info.dataset.query = row; info.dataset.key = col; info.dataset.head = p.head;
});
select.addEventListener('change', update);
window.addEventListener('resize', update);
update();
)JS" "</script>\n</body></html>\n";
  return html;
}

std::vector<std::string> token_texts_of(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  for (const Token& t : tokens) out.push_back(t.text);
  return out;
}

}  // namespace

std::string static_page(const plot::Figure& figure, const std::string& title) {
  std::string svg = plot::render_svg(figure);
  if (svg.rfind("<?xml", 0) == 0) svg.erase(0, svg.find('\n') + 1);
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_text(title) +
         "</title>\n<style>body{margin:12px}</style></head><body>\n" + svg + "</body></html>\n";
}

Result<std::string> attention_page(const State& state, const Results& results) {
  const int heads = static_cast<int>(results.attention.weights.size());
  if (heads == 0) return Error{"no attention to put in a page"};
  const std::size_t cells = static_cast<std::size_t>(heads) * static_cast<std::size_t>(results.attention.weights[0].size());
  if (cells > kMostCells)
    return Error{"--html: " + std::to_string(cells) + " cells over " + std::to_string(heads) + " heads are too many for a page that answers the pointer (" +
                 std::to_string(kMostCells) + " at most): use a shorter sentence, or --csv"};
  std::vector<std::pair<std::string, std::string>> views;
  Json panels = Json::array();
  float width = 0.0f;
  for (int h = 0; h < heads; ++h) {
    State one = state;
    one.view.head = h;
    one.view.mean_heads = false;
    const plot::HeatmapFigure figure = attention_figure(one, results, kExportSide);
    width = figure.figure.width;
    views.emplace_back("head " + std::to_string(h), plot::render_svg(figure.figure));
    Panel p{figure.cells, h, "", &results.attention.scores[static_cast<std::size_t>(h)], &results.attention.weights[static_cast<std::size_t>(h)],
            [&results](int i, int j) { return results.problem.masked(i, j); }, token_texts_of(results.tokens), token_texts_of(results.key_tokens)};
    panels.push_back(Json::array({panel_json(p)}));
  }
  const std::string title = results.description.empty() ? "PosLab · attention" : "PosLab · " + results.description;
  return page(title, views, panels, heads, false, width);
}

Result<std::string> heads_page(const ModelRun& run, const TransformerConfig& config) {
  const HeadsFigure figure = heads_figure(run, config, kHeadThumbSide);
  Json panels = Json::array();
  std::size_t cells = 0;
  for (const HeadThumb& t : figure.thumbs) {
    const ForwardResult& f = t.changed && run.changed ? *run.changed : run.unchanged;
    const LayerAttention* a = f.layer(run.request.layer, t.stack);
    if (!a || static_cast<std::size_t>(t.head) >= a->weights.size()) continue;
    cells += static_cast<std::size_t>(a->weights[static_cast<std::size_t>(t.head)].size());
    if (cells > kMostCells) return Error{"--html: the heads' cells are too many for a page that answers the pointer: use a shorter sentence, or --csv"};
    Panel p{t.box, t.head, run.changed ? (t.changed ? "changed" : "unchanged") : "", &a->scores[static_cast<std::size_t>(t.head)],
            &a->weights[static_cast<std::size_t>(t.head)], [a](int i, int j) { return a->masked(i, j); },
            a->cross || a->stack == ModelStack::Decoder ? f.decoder_tokens : f.tokens, a->stack == ModelStack::Decoder ? f.decoder_tokens : f.tokens};
    panels.push_back(panel_json(p));
  }
  if (panels.empty()) return Error{"layer " + std::to_string(run.request.layer) + " was not kept: no heads to put in a page"};
  return page("PosLab · heads of layer " + std::to_string(run.request.layer), {{"heads", plot::render_svg(figure.figure)}},
              Json::array({panels}), config.heads, true, figure.figure.width);
}

}  // namespace poslab

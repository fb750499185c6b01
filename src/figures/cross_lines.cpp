#include "figures/cross_lines.hpp"

#include <algorithm>

#include "base/text.hpp"
#include "core/attention/attention.hpp"

namespace poslab {

namespace {

constexpr plot::Color kInk{0.10f, 0.10f, 0.12f, 1.0f}, kMuted{0.38f, 0.38f, 0.42f, 1.0f};
constexpr float kMargin = 16.0f, kColumn = 150.0f, kGap = 120.0f;

// The head's weights, or their mean over the heads.
Matrix head_weights(const LayerAttention& a, int head) {
  if (head >= 0 && head < static_cast<int>(a.weights.size())) return a.weights[static_cast<std::size_t>(head)];
  return mean_over_heads(a.weights);
}

// A token's label, cut to fit its column.
std::string label(const std::string& token) {
  constexpr std::size_t kMost = 18;
  if (token.size() <= kMost) return token;
  std::size_t cut = kMost;
  while (cut > 0 && is_utf8_continuation(static_cast<unsigned char>(token[cut]))) --cut;  // not inside a character
  return token.substr(0, cut) + "…";
}

}  // namespace

plot::Figure cross_lines_figure(const LayerAttention& a, const std::vector<std::string>& decoder_tokens,
                                const std::vector<std::string>& encoder_tokens, int head, const std::string& title) {
  plot::Figure fig;
  if (!a.cross || a.weights.empty()) return fig;
  const Matrix W = head_weights(a, head);
  const auto rows = static_cast<int>(W.rows()), cols = static_cast<int>(W.cols());
  // Rows shrink with many tokens so that the figure stays a page tall; labels only where they fit.
  const float row = std::clamp(560.0f / static_cast<float>(std::max(rows, cols)), 3.0f, 18.0f);
  const bool labels = row >= 9.0f;
  const float top = kMargin + 60.0f, left = kMargin + kColumn, right = left + kGap;
  fig.width = right + kColumn + kMargin;
  fig.height = top + row * static_cast<float>(std::max(rows, cols)) + kMargin;
  fig.rect({0, 0, fig.width, fig.height}, {1, 1, 1, 1});
  fig.text({kMargin, kMargin}, title, 13.0f, kInk).role = "title";
  fig.text({kMargin, kMargin + 20.0f},
           (head >= 0 ? "head " + std::to_string(head) : std::string("mean of the heads")) + " · a line per pair, as opaque as its weight",
           11.0f, kMuted).role = "subtitle";
  fig.text({left, top - 18.0f}, "decoder", 11.0f, kMuted, plot::HAlign::Right);
  fig.text({right, top - 18.0f}, "encoder", 11.0f, kMuted);
  const float most = std::max(W.maxCoeff(), 1e-6f);
  const auto y_of = [&](int i) { return top + row * (static_cast<float>(i) + 0.5f); };
  // Faint pairs first is no matter: each line's opacity is its own; the faintest are left out.
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const float w = W(i, j) / most;
      if (w < 0.02f) continue;
      fig.line({left + 6.0f, y_of(i)}, {right - 6.0f, y_of(j)}, {0.16f, 0.38f, 0.75f, w}, 1.0f + 2.0f * w);
    }
  if (labels) {
    for (int i = 0; i < rows && i < static_cast<int>(decoder_tokens.size()); ++i)
      fig.text({left, y_of(i)}, label(decoder_tokens[static_cast<std::size_t>(i)]), 11.0f, kInk, plot::HAlign::Right, plot::VAlign::Middle);
    for (int j = 0; j < cols && j < static_cast<int>(encoder_tokens.size()); ++j)
      fig.text({right, y_of(j)}, label(encoder_tokens[static_cast<std::size_t>(j)]), 11.0f, kInk, plot::HAlign::Left, plot::VAlign::Middle);
  }
  fig.areas.push_back({left, top, right, fig.height - kMargin});
  return fig;
}

}  // namespace poslab

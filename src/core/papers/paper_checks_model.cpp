// The checks of "Papers, checked" measured on a model the user opens (--model DIR): attention
// sinks (StreamingLLM), massive activations (Sun et al.) and which rotary frequencies positional
// heads use (Barbero et al.). Each holds the paper's claim about the large models it studied
// against the opened model, on short English sentences of PosLab's own (probe_sentences).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "core/model/checkpoint.hpp"
#include "core/model/forward.hpp"
#include "core/model/position_probe.hpp"
#include "core/papers/cited.hpp"
#include "core/papers/papers.hpp"

namespace poslab {

namespace {

using namespace cited;

constexpr int kSentences = 8;    // of probe_sentences()
constexpr int kSinkTokens = 16;  // StreamingLLM's Fig. 2: sentences of 16 tokens

struct OpenedModel {
  std::shared_ptr<const Checkpoint> model;
  std::vector<std::vector<int>> sentences;  // token ids, BOS included
};

// The model and the first kSentences sentences as its tokens, each cut to `longest` (0: whole).
Result<OpenedModel> open_model(const PaperInputs& in, int longest) {
  auto model = Checkpoint::open(in.model);
  if (!model) return Error{in.model.string() + ": " + model.error()};
  OpenedModel m{*model, {}};
  for (int k = 0; k < kSentences; ++k) {
    auto ids = model_tokens(**model, probe_sentences()[static_cast<std::size_t>(k)]);
    if (!ids) return Error{"sentence " + std::to_string(k + 1) + ": " + ids.error()};
    if (longest > 0 && static_cast<int>(ids->size()) > longest) ids->resize(static_cast<std::size_t>(longest));
    if (ids->size() < 2) return Error{"sentence " + std::to_string(k + 1) + " has fewer than 2 tokens in this model"};
    m.sentences.push_back(std::move(*ids));
  }
  return m;
}

// Each sentence through the model with `options`, `use` given every result in turn.
template <class Use>
Status each_sentence(const PaperInputs& in, const OpenedModel& m, ForwardOptions options, Use use) {
  options.cancel = in.cancel;
  for (std::size_t k = 0; k < m.sentences.size(); ++k) {
    auto f = run_forward(*m.model, m.sentences[k], options);
    if (!f) return Error{f.error()};
    use(*f);
    if (in.progress) in.progress(static_cast<double>(k + 1) / static_cast<double>(m.sentences.size()));
  }
  return Ok{};
}

double mean_between(const std::vector<double>& v, std::size_t from, std::size_t to) {
  double sum = 0.0;
  for (std::size_t i = from; i < to; ++i) sum += v[i];
  return to > from ? sum / static_cast<double>(to - from) : std::numeric_limits<double>::quiet_NaN();
}

// --- sinks ---------------------------------------------------------------------------------------

// Per layer of the first stack: the mean over sentences and heads of each head's mean weight on
// the first token (HeadSummary::sink, the value `export sinks` writes).
Result<std::vector<double>> layer_sinks(const PaperInputs& in, const OpenedModel& m) {
  const int layers = m.model->config().layers;
  std::vector<double> sink(static_cast<std::size_t>(layers), 0.0);
  std::vector<int> counted(static_cast<std::size_t>(layers), 0);
  ForwardOptions o;
  o.summarize_all_layers = true;
  auto s = each_sentence(in, m, o, [&](const ForwardResult& f) {
    for (const LayerAttention& a : f.layers)
      if (a.stack == ModelStack::Encoder && a.layer < layers)
        for (const HeadSummary& h : a.heads)
          sink[static_cast<std::size_t>(a.layer)] += h.sink, ++counted[static_cast<std::size_t>(a.layer)];
  });
  if (!s) return Error{s.error()};
  for (std::size_t l = 0; l < sink.size(); ++l) sink[l] = counted[l] ? sink[l] / counted[l] : 0.0;
  return sink;
}

Result<PaperOutcome> sinks(const PaperInputs& in) {
  auto m = open_model(in, kSinkTokens);
  if (!m) return Error{m.error()};
  const int layers = m->model->config().layers;
  if (layers < 3)
    return Error{"sinks compares layers 0–1 with the layers above them: this model has " + std::to_string(layers)};
  auto sink = layer_sinks(in, *m);
  if (!sink) return Error{sink.error()};
  const double above = mean_between(*sink, 2, sink->size()), bottom = mean_between(*sink, 0, 2);
  PaperCheckResult r{"sinks", {}};
  r.rows.push_back(comparison(kXiao, "§3.1, Fig. 2",
                              "mean weight on the first token, layers ≥ 2, every head (16-token sentences): heavy",
                              {0.5}, {above}, 0.0, Relation::AtLeast,
                              "PosLab reads \"heavily attends to the initial token\" as at least half of the weight"));
  r.rows.push_back(comparison(kXiao, "§3.1, Fig. 2",
                              "layers ≥ 2 minus layers 0–1 (the bottom two look locally): above 0", {0.0},
                              {above - bottom}, 0.0, Relation::AtLeast));
  PaperOutcome o{std::move(r), {}};
  if (in.panels) {
    PaperPanel p{"Attention sinks (Xiao et al. 2023, Fig. 2)",
                 "layer",
                 "mean weight on the first token",
                 false,
                 false,
                 {},
                 {{0.5, "½: the bound PosLab reads \"heavily\" as"}},
                 {{1.5, "the bottom two layers"}}};
    PaperCurve ours{"PosLab: the opened model", {}, *sink, CurveKind::Computed};
    // What uniform attention would put on the first token: the mean over queries i of 1/(i + 1).
    double uniform = 0.0;
    for (const auto& ids : m->sentences) {
      double u = 0.0;
      for (std::size_t i = 0; i < ids.size(); ++i) u += 1.0 / static_cast<double>(i + 1);
      uniform += u / static_cast<double>(ids.size());
    }
    uniform /= static_cast<double>(m->sentences.size());
    PaperCurve flat{"uniform attention's share", {}, std::vector<double>(sink->size(), uniform), CurveKind::Fit};
    for (std::size_t l = 0; l < sink->size(); ++l)
      ours.x.push_back(static_cast<double>(l)), flat.x.push_back(static_cast<double>(l));
    p.curves = {ours, flat};
    p.whole_x = true;
    o.panels.push_back(p);
  }
  return o;
}

// --- massive-activations -------------------------------------------------------------------------

// The first token's delimiter: ".", "\n" or a token holding one (Sun et al.: the starting token and
// the first period or newline).
bool delimiter(const std::string& token) {
  return token.find('.') != std::string::npos || token.find('\n') != std::string::npos ||
         token.find("Ċ") != std::string::npos;
}

struct Peaks {
  std::vector<double> largest, median;  // per layer: the largest |x| over sentences, the mean median |x|
  double top = 0.0, top_median = 0.0;   // the largest of all, and the median of its layer and sentence
  int at_start_or_delimiter = 0;        // sentences whose largest sits on token 0 or the first delimiter
};

Result<Peaks> residual_peaks(const PaperInputs& in, const OpenedModel& m) {
  const auto layers = static_cast<std::size_t>(m.model->config().layers);
  Peaks p{std::vector<double>(layers, 0.0), std::vector<double>(layers, 0.0), 0.0, 0.0, 0};
  ForwardOptions o;
  o.top_activations = 1;
  auto s = each_sentence(in, m, o, [&](const ForwardResult& f) {
    const ResidualPeaks* best = nullptr;
    for (const ResidualPeaks& r : f.activations) {
      if (r.top.empty() || static_cast<std::size_t>(r.layer) >= layers) continue;
      const double v = std::abs(r.top.front().value);
      p.largest[static_cast<std::size_t>(r.layer)] = std::max(p.largest[static_cast<std::size_t>(r.layer)], v);
      p.median[static_cast<std::size_t>(r.layer)] += r.median_abs / static_cast<double>(m.sentences.size());
      if (!best || v > std::abs(best->top.front().value)) best = &r;
    }
    if (!best) return;
    const double v = std::abs(best->top.front().value);
    if (v > p.top) p.top = v, p.top_median = best->median_abs;
    const int at = best->top.front().position;
    int first_delimiter = -1;
    for (std::size_t t = 1; t < f.tokens.size() && first_delimiter < 0; ++t)
      if (delimiter(f.tokens[t])) first_delimiter = static_cast<int>(t);
    p.at_start_or_delimiter += at == 0 || at == first_delimiter ? 1 : 0;
  });
  if (!s) return Error{s.error()};
  return p;
}

Result<PaperOutcome> massive_activations(const PaperInputs& in) {
  auto m = open_model(in, 0);
  if (!m) return Error{m.error()};
  auto p = residual_peaks(in, *m);
  if (!p) return Error{p.error()};
  const double ratio = p->top_median > 0.0 ? p->top / p->top_median : std::numeric_limits<double>::infinity();
  PaperCheckResult r{"massive-activations", {}};
  r.rows.push_back(comparison(kSun, "§2 (what counts as massive)",
                              "largest |activation| of the residual stream, any layer", {100.0}, {p->top}, 0.0,
                              Relation::AtLeast));
  r.rows.push_back(comparison(kSun, "§2 (what counts as massive)",
                              "largest |activation| ÷ the median |activation| of its layer's hidden states", {1000.0},
                              {ratio}, 0.0, Relation::AtLeast,
                              "Sun et al.: \"about 1,000 times larger than the median\""));
  r.rows.push_back(comparison(
      kSun, "§2, Fig. 1", "share of the sentences whose largest sits on the first token or the first delimiter", {1.0},
      {static_cast<double>(p->at_start_or_delimiter) / static_cast<double>(m->sentences.size())}, 0.25,
      Relation::AtLeast, "PosLab allows a quarter of the 8 sentences to differ"));
  PaperOutcome o{std::move(r), {}};
  if (in.panels) {
    PaperPanel panel{"Massive activations (Sun et al. 2024, Fig. 1)",
                     "after layer",
                     "|activation| (log scale)",
                     false,
                     true,
                     {},
                     {{100.0, "100: Sun et al.'s least massive value"}},
                     {}};
    PaperCurve largest{"PosLab: the largest |x|", {}, p->largest, CurveKind::Computed};
    PaperCurve median{"PosLab: the median |x|", {}, p->median, CurveKind::Computed};
    for (std::size_t l = 0; l < p->largest.size(); ++l)
      largest.x.push_back(static_cast<double>(l)), median.x.push_back(static_cast<double>(l));
    panel.curves = {largest, median};
    panel.whole_x = true;
    o.panels.push_back(panel);
  }
  return o;
}

// --- frequency-usage -----------------------------------------------------------------------------

constexpr int kBins = 8;  // pair index ÷ pairs, in eighths: the fastest first
constexpr double kPositional =
    0.5;  // a head is positional when its mean weight on itself or on the previous token is ≥ this

struct HeadUse {
  std::array<double, kBins> share{};  // the head's usage in each eighth of its pairs, summing to 1
  double diagonal = 0.0, previous = 0.0;
};

double diagonal_weight(const Matrix& A) {
  double d = 0.0;
  for (Eigen::Index i = 0; i < A.rows(); ++i) d += A(i, i);
  return A.rows() ? d / static_cast<double>(A.rows()) : 0.0;
}

// Per (layer, head) of the rotated layers: usage binned by pair and where the head looks,
// each averaged over the sentences.
Result<std::vector<HeadUse>> head_uses(const PaperInputs& in, const OpenedModel& m) {
  std::vector<HeadUse> heads;
  std::vector<std::pair<int, int>> keys;  // (layer, head) of each entry
  ForwardOptions o;
  o.all_layers = true;
  const double n = static_cast<double>(m.sentences.size());
  auto s = each_sentence(in, m, o, [&](const ForwardResult& f) {
    for (const LayerAttention& a : f.layers) {
      if (a.stack != ModelStack::Encoder || a.frequency_usage.cols() == 0) continue;
      const Eigen::Index pairs = a.frequency_usage.cols();
      for (Eigen::Index h = 0; h < a.frequency_usage.rows() && h < static_cast<Eigen::Index>(a.weights.size()); ++h) {
        const std::pair<int, int> key{a.layer, static_cast<int>(h)};
        auto it = std::find(keys.begin(), keys.end(), key);
        if (it == keys.end()) keys.push_back(key), heads.emplace_back(), it = keys.end() - 1;
        HeadUse& u = heads[static_cast<std::size_t>(it - keys.begin())];
        const double total = a.frequency_usage.row(h).sum();
        for (Eigen::Index i = 0; i < pairs && total > 0.0; ++i)
          u.share[static_cast<std::size_t>(i * kBins / pairs)] += a.frequency_usage(h, i) / total / n;
        u.diagonal += diagonal_weight(a.weights[static_cast<std::size_t>(h)]) / n;
        if (static_cast<std::size_t>(h) < a.heads.size())
          u.previous += a.heads[static_cast<std::size_t>(h)].previous_token / n;
      }
    }
  });
  if (!s) return Error{s.error()};
  return heads;
}

Result<PaperOutcome> frequency_usage_check(const PaperInputs& in) {
  auto m = open_model(in, 0);
  if (!m) return Error{m.error()};
  if (m->model->config().positions != PositionKind::Rope) return Error{"frequency-usage needs a RoPE model"};
  auto heads = head_uses(in, *m);
  if (!heads) return Error{heads.error()};
  std::array<double, kBins> positional{}, other{};
  int np = 0, no = 0;
  for (const HeadUse& u : *heads) {
    const bool pos = std::max(u.diagonal, u.previous) >= kPositional;
    for (int b = 0; b < kBins; ++b)
      (pos ? positional : other)[static_cast<std::size_t>(b)] += u.share[static_cast<std::size_t>(b)];
    ++(pos ? np : no);
  }
  if (np == 0 || no == 0)
    return Error{
        "frequency-usage compares positional heads (weight ≥ 0.5 on the token itself or the one before) with the "
        "others: this "
        "model has " +
        std::to_string(np) + " positional and " + std::to_string(no) + " other heads on these sentences"};
  for (int b = 0; b < kBins; ++b)
    positional[static_cast<std::size_t>(b)] /= np, other[static_cast<std::size_t>(b)] /= no;
  const double fast = positional[0] + positional[1] - other[0] - other[1];
  const double slow = other[kBins - 2] + other[kBins - 1] - positional[kBins - 2] - positional[kBins - 1];
  const std::string counts = std::to_string(np) + " positional heads, " + std::to_string(no) + " others";
  PaperCheckResult r{"frequency-usage", {}};
  r.rows.push_back(comparison(kBarbero, "abstract; Gemma 7B's positional heads",
                              "usage share of the fastest quarter of the pairs: positional heads − others", {0.0},
                              {fast}, 0.0, Relation::AtLeast, counts));
  r.rows.push_back(comparison(kBarbero, "abstract; Gemma 7B's lowest frequencies",
                              "usage share of the slowest quarter of the pairs: other heads − positional", {0.0},
                              {slow}, 0.0, Relation::AtLeast, counts));
  PaperOutcome o{std::move(r), {}};
  if (in.panels) {
    PaperPanel p{"Which frequencies heads use (Barbero et al. 2024)",
                 "rotary pairs in eighths, fastest first",
                 "mean share of the head's usage",
                 false,
                 false,
                 {},
                 {},
                 {}};
    PaperCurve a{"positional heads (" + std::to_string(np) + ")", {}, {}, CurveKind::Computed};
    PaperCurve b{"other heads (" + std::to_string(no) + ")", {}, {}, CurveKind::Computed};
    for (int k = 0; k < kBins; ++k) {
      a.x.push_back(k + 1), a.y.push_back(positional[static_cast<std::size_t>(k)]);
      b.x.push_back(k + 1), b.y.push_back(other[static_cast<std::size_t>(k)]);
    }
    p.curves = {a, b};
    p.whole_x = true;
    o.panels.push_back(p);
  }
  return o;
}

}  // namespace

// Declared beside the list in paper_checks.cpp.
Result<PaperOutcome> run_sinks(const PaperInputs& in) { return sinks(in); }
Result<PaperOutcome> run_massive_activations(const PaperInputs& in) { return massive_activations(in); }
Result<PaperOutcome> run_frequency_usage(const PaperInputs& in) { return frequency_usage_check(in); }

}  // namespace poslab

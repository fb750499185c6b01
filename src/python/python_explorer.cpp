// poslab.encoding, poslab.attention, poslab.figure and poslab.plot_attention: the explorer's
// computations and views, as `poslab export` runs them.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/memory.hpp"
#include "core/attention/pipeline.hpp"
#include "core/encodings/encodings.hpp"
#include "core/encodings/rope_scaling.hpp"
#include "core/export_data.hpp"
#include "core/workspace.hpp"
#include "figures/assets.hpp"
#include "figures/attention.hpp"
#include "figures/export.hpp"
#include "figures/frequencies.hpp"
#include "figures/html_page.hpp"
#include "figures/given_indices.hpp"
#include "figures/headless_gpu.hpp"
#include "figures/model.hpp"
#include "figures/model_state.hpp"
#include "python/python_api.hpp"

namespace poslab::python {

namespace {

// RoPE's rotation of each pair at each position, in the sinusoidal table's layout.
Matrix rope_table(const ModelSettings& m, int positions, int dim) {
  const int rotary = std::min(frequencies_rotary_dim(m, dim), dim - dim % 2);
  const RopeFrequencies f = rope_frequencies(rotary, m.base, m.scaling, positions);
  Matrix table = Matrix::Zero(positions, dim);
  for (int pair = 0; 2 * pair + 1 < dim; ++pair) table.col(2 * pair + 1).setOnes();  // unrotated: angle 0
  for (int p = 0; p < positions; ++p)
    for (std::size_t i = 0; i < f.thetas.size(); ++i) {
      const double angle = p * f.thetas[i];
      table(p, static_cast<Eigen::Index>(2 * i)) = static_cast<float>(std::sin(angle));
      table(p, static_cast<Eigen::Index>(2 * i + 1)) = static_cast<float>(std::cos(angle));
    }
  return table;
}

// The embeddings' pipeline run for the state, as `poslab export VIEW` runs it.
struct ExplorerRun {
  Workspace workspace;
  HeadlessGpu gpu;
  const Results& results() const { return *workspace.results(); }
};

std::unique_ptr<ExplorerRun> run_explorer(const ParsedKeywords& parsed) {
  const State& state = parsed.state;
  auto run = std::make_unique<ExplorerRun>();
  const std::string path = state.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state.embeddings_path;
  check(run->workspace.load_embeddings(path, state.vocab_path, state.tensor_name));
  run->gpu = open_headless_gpu(state.backend);
  run->workspace.set_gpu_backend(run->gpu.backend.get(), run->gpu.unavailable, run->gpu.renderer);
  check(run->workspace.update(state));
  check(check_given_indices([&](std::string_view name) { return parsed.given(name); }, state, run->results()));
  return run;
}

// A model folder's run for a state with model= (and layer= for the attention view).
struct ModelViewRun {
  std::shared_ptr<const Checkpoint> model;
  ModelRun run;
};

ModelViewRun run_model_view(ViewId view, State& state, const std::string& function, const Progress& progress) {
  auto model = take(open_state_model(state, function));
  const TransformerConfig& c = model->config();
  check(check_model_indices(state, c));
  check(check_interventions_apply(state, c));
  check(check_model_view(view, state, c));
  HeadlessGpu g = open_headless_gpu(state.backend);
  auto run = take(run_state_model(*model, state, 5, g.backend.get(), progress, view));
  return {std::move(model), std::move(run)};
}

Attention attention_of(const Results& r, Figure figure) {
  Attention a;
  a.weights = r.attention.weights;
  a.scores = r.attention.scores;
  for (const Token& t : r.tokens) a.tokens.push_back(t.text);
  for (const Token& t : r.key_tokens) a.key_tokens.push_back(t.text);
  a.figure = std::move(figure);
  return a;
}

// The attention page of `r`, made when .to_html() asks (the results copied, the figures drawn then).
std::function<Result<std::string>()> page_of(const State& state, const Results& r) {
  return [state, r = std::make_shared<const Results>(r)] { return attention_page(state, *r); };
}

std::string attention_csv(const Results& r) {
  std::ostringstream csv;
  write_attention_csv(csv, r);
  return csv.str();
}

}  // namespace

Matrix encoding(const std::string& kind, long long positions, long long dim, const Keywords& keywords) {
  MemoryLimitScope scope;
  Keywords all = {{"encoding", kind}};
  all.insert(all.end(), keywords.begin(), keywords.end());
  const State state = parse_keywords(all, "poslab.encoding").state;
  if (positions < 1 || positions > (1 << 24)) fail("positions must be from 1 to 16777216, not " + std::to_string(positions));
  if (dim < 1 || dim > 65536) fail("dim must be from 1 to 65536, not " + std::to_string(dim));
  const double bytes = 2.0 * static_cast<double>(positions) * static_cast<double>(dim) * sizeof(float);
  check(check_memory(bytes, "an encoding of " + std::to_string(positions) + " × " + std::to_string(dim),
                     "ask for fewer positions or dimensions"));
  const int T = static_cast<int>(positions), d = static_cast<int>(dim);
  if (state.model.encoding == EncodingKind::Rope) return rope_table(state.model, T, d);
  return take(additive_encoding(state.model, T, d));
}

Attention attention(const std::string& sentence, const Keywords& keywords, const Progress& progress) {
  MemoryLimitScope scope;
  Keywords all = {{"sentence", sentence}};
  all.insert(all.end(), keywords.begin(), keywords.end());
  ParsedKeywords parsed = parse_keywords(all, "poslab.attention");
  State& state = parsed.state;
  if (view_needs_model(ViewId::Attention, state)) {
    const ModelViewRun m = run_model_view(ViewId::Attention, state, "poslab.attention", progress);
    const TransformerConfig& c = m.model->config();
    const Results r = layer_results(m.run.shown(), m.run.request.layer, c, m.run.describe());
    return attention_of(r, {model_attention_figure(state, m.run, c, kExportSide), attention_csv(r), page_of(state, r)});
  }
  const auto run = run_explorer(parsed);
  const Results& r = run->results();
  return attention_of(r, {attention_figure(state, r, kExportSide).figure, attention_csv(r), page_of(state, r)});
}

Figure view_figure(const std::string& name, const Keywords& keywords, const Progress& progress) {
  MemoryLimitScope scope;
  // Every view drawn from the embeddings or from a model, but the tour (a slide, not a figure).
  constexpr auto drawn_here = [](const ViewInfo& v) { return v.id != ViewId::Tour && view_exports(v) && (v.figure || v.model_output); };
  const auto view = view_named(name);
  if (!view || !drawn_here(view_info(*view)))
    fail("poslab.figure: unknown view \"" + name + "\" (available: " + view_names_where(drawn_here) + ")");
  ExportRequest request;
  const std::vector<Flag> flags = {head_dim_flag(request.head_dim)};
  ParsedKeywords parsed = parse_keywords(keywords, "poslab.figure", *view == ViewId::Frequencies ? flags : std::vector<Flag>{});
  State& state = parsed.state;
  if (*view == ViewId::Mrope) {
    auto model = take(open_state_model(state, "poslab.figure"));
    ModelViewOutput out = take(mrope_view_output(state, model->config()));
    return {std::move(out.figure), std::move(out.csv), {}};
  }
  if (*view == ViewId::PositionProbe) {  // many sentences through the model, no one run to draw from
    auto model = take(open_state_model(state, "poslab.figure"));
    if (auto s = check_model_settings(state, model->config()); !s) fail("poslab.figure: " + s.error());
    ModelViewOutput out = take(position_probe_output(state, *model, nullptr, progress));
    return {std::move(out.figure), std::move(out.csv), {}};
  }
  if (view_needs_model(*view, state)) {
    const ModelViewRun m = run_model_view(*view, state, "poslab.figure", progress);
    ModelViewOutput out = take(model_view_output(*view, state, m.run, m.model->config()));
    Figure f{std::move(out.figure), std::move(out.csv), {}};
    const auto run = std::make_shared<const ModelRun>(m.run);
    const TransformerConfig config = m.model->config();
    if (*view == ViewId::Heads) f.html = [run, config] { return heads_page(*run, config); };
    if (*view == ViewId::Attention)
      f.html = [state, run, config] { return attention_page(state, layer_results(run->shown(), run->request.layer, config, run->describe())); };
    return f;
  }
  const auto run = run_explorer(parsed);
  const ViewInfo& info = view_info(*view);
  const ViewInputs in{state, run->results(), run->workspace.embeddings(), request.head_dim, request.scale};
  Figure f{take(info.figure(in)), take(info.csv(in)), {}};
  if (*view == ViewId::Attention) f.html = page_of(state, run->results());
  return f;
}

Figure plot_attention(std::vector<Matrix> weights, std::vector<std::string> tokens, const Keywords& keywords) {
  MemoryLimitScope scope;
  ParsedKeywords parsed = parse_keywords(keywords, "poslab.plot_attention");
  State& state = parsed.state;
  if (weights.empty()) fail("plot_attention: the weights have no heads");
  const Eigen::Index T = weights.front().rows();
  if (T < 1) fail("plot_attention: the weights hold no token (T is 0)");
  for (const Matrix& w : weights)
    if (w.rows() != T || w.cols() != T) fail("plot_attention: each head's weights must be T × T, one row and column per token");
  if (tokens.size() != static_cast<std::size_t>(T))
    fail("plot_attention: " + std::to_string(tokens.size()) + " tokens for weights of " + std::to_string(T) + " × " +
         std::to_string(T));
  // Weights exactly 0 above the diagonal in every head are a causal mask, hatched as PosLab hatches its own.
  if (!parsed.given("--causal") && T > 1)
    state.model.causal = std::all_of(weights.begin(), weights.end(), [](const Matrix& w) {
      return w.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().isZero(0.0f);
    });
  Results r;
  for (const std::string& t : tokens) r.tokens.push_back({t});
  r.key_tokens = r.tokens;
  r.problem.heads = static_cast<int>(weights.size());
  r.problem.causal = state.model.causal;
  r.problem.key_valid.assign(tokens.size(), 1);
  r.problem.Xq = Matrix::Zero(T, r.problem.heads);
  r.problem.Xkv = r.problem.Xq;
  r.description = "attention weights given from Python" + std::string(state.model.causal ? " · causal mask" : "");
  r.attention.scores = weights;
  r.attention.weights = std::move(weights);
  if (!state.view.mean_heads) check(check_index("--head", state.view.head, r.problem.heads, "heads"));
  return {attention_figure(state, r, kExportSide).figure, attention_csv(r), page_of(state, r)};
}

}  // namespace poslab::python

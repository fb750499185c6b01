#include "figures/animation.hpp"

#include <cmath>

#include "core/model/model_run.hpp"
#include "figures/attention.hpp"
#include "figures/model.hpp"
#include "figures/model_state.hpp"

namespace poslab {

namespace {

// As `poslab export` draws a model folder's views (cli.cpp, run_model_export).
Result<plot::Figure> model_figure(const AnimationSource& source, State state) {
  if (!source.model)
    return Error{"the " + std::string(to_string(source.view)) + " view needs a model folder: --model DIR"};
  const TransformerConfig& c = source.model->config();
  if (auto s = check_model_view(source.view, state, c); !s) return Error{s.error()};
  auto run = run_state_model(*source.model, state, 5, source.gpu, {}, source.view);
  if (!run) return Error{run.error()};
  auto output = model_view_output(source.view, state, *run, c);
  if (!output) return Error{output.error()};
  return std::move(output->figure);
}

}  // namespace

Result<plot::Figure> animation_figure(const AnimationSource& source, const State& state) {
  if (source.view == ViewId::Tour)
    return Error{"the tour cannot be animated; animate the view of its step instead"};
  if (view_needs_model(source.view, state)) return model_figure(source, state);
  if (auto s = source.workspace->update(state); !s) return Error{s.error()};
  const Results& results = *source.workspace->results();
  if (!state.view.mean_heads && state.view.head >= results.problem.heads)
    return Error{"--head " + std::to_string(state.view.head) + " is out of range: there are " +
                 std::to_string(results.problem.heads) + " heads (0 to " + std::to_string(results.problem.heads - 1) +
                 ")"};
  return view_figure(source.view, state, results, source.workspace->embeddings());
}

Result<plot::Figure> animation_frame_figure(const AnimationSource& source, const State& start, const Sweep& sweep,
                                            int k) {
  auto state = sweep_state(start, sweep, k);
  auto figure = state ? animation_figure(source, *state) : Result<plot::Figure>(Error{state.error()});
  if (!figure)
    return Error{"frame " + std::to_string(k) + " (" + std::string(sweep.param.name) + " = " +
                 sweep_value_text(sweep, k) + "): " + figure.error()};
  return figure;
}

std::pair<int, int> frame_size(const plot::Figure& figure, float scale) {
  return {static_cast<int>(std::ceil(figure.width * scale)), static_cast<int>(std::ceil(figure.height * scale))};
}

Result<plot::RgbaImage> render_animation_frame(const AnimationSource& source, const State& start, const Sweep& sweep,
                                               int k, plot::FigureRenderer& renderer) {
  auto figure = animation_frame_figure(source, start, sweep, k);
  if (!figure) return Error{figure.error()};
  return renderer.render(*figure);
}

}  // namespace poslab

#include "cli/animate_cli.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>

#include "cli/args.hpp"
#include "cli/interrupt.hpp"
#include "cli/commands.hpp"
#include "core/animate/sweep.hpp"
#include "core/attention/backend_choice.hpp"
#include "core/formats/formats.hpp"
#include "core/options.hpp"
#include "core/session.hpp"
#include "core/workspace.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/headless.hpp"
#include "plot/video.hpp"
#include "figures/animation.hpp"
#include "figures/assets.hpp"
#include "figures/export.hpp"

namespace poslab {

namespace {


struct AnimationArgs {
  std::string param;
  std::optional<double> from, to;
  std::optional<int> frames;
  double fps = 24.0;
  float scale = 1.0f;
  int width = 0, height = 0;  // --size: the video's frame size (0: the largest figure's)
  std::optional<plot::AnimationFormat> format;
  std::string output;
};

std::string_view format_name(plot::AnimationFormat f) {
  switch (f) {
    case plot::AnimationFormat::Mp4:
      return "MP4 H.264";
    case plot::AnimationFormat::Gif:
      return "GIF";
    case plot::AnimationFormat::FramesDir:
      return "PNG frames";
  }
  return "?";
}

}  // namespace

bool is_animation_request(const std::vector<std::string_view>& args) {
  for (std::string_view a : args)
    if (a == "--animate" || a.starts_with("--animate=")) return true;
  return false;
}

std::string animation_help() {
  std::string params;
  for (const SweepParam& p : sweep_params()) params += (params.empty() ? "" : ", ") + std::string(p.name);
  return "an animation: frame k of N shows PARAM = A + k·(B − A)/(N − 1) (rounded for a whole-number option), each "
         "frame the still that export VIEW --PARAM v --png writes; one of --mp4, --gif or --frames-dir. PARAM, a "
         "numeric state option's name: " +
         params;
}

namespace {

// An output flag: --mp4, --gif or --frames-dir, only one of them.
Flag output_flag(std::string_view name, std::string_view value, std::string help, plot::AnimationFormat format, AnimationArgs& a) {
  return {name, value, std::move(help), [name, format, &a](std::string_view v) -> Status {
            if (a.format) return Error{"give only one of --mp4 FILE, --gif FILE and --frames-dir DIR"};
            a.format = format;
            a.output = std::string(v);
            if (a.output.empty()) return Error{std::string(name) + " needs a file name"};
            return Ok{};
          }};
}

Flag number_flag(std::string_view name, std::string_view value, std::string help, std::optional<double>& into) {
  return {name, value, std::move(help), [name, &into](std::string_view v) -> Status {
            auto number = parse_number(v, name);
            if (!number) return Error{number.error()};
            into = *number;
            return Ok{};
          }};
}

constexpr std::string_view kNeedsParameter = "--animate needs a parameter, e.g. --animate base";

// What a flag the animation needs says when it is missing: the parameter first, then what it needs.
std::function<std::string()> needs(const AnimationArgs& a, std::string what) {
  return [&a, what = std::move(what)] {
    return a.param.empty() ? std::string(kNeedsParameter) : "--animate " + a.param + " needs " + what;
  };
}

// The animation's own options, each declared once, those it needs in the order they are asked for.
std::vector<Flag> animation_flags(AnimationArgs& a) {
  return {
      needed(text_flag("--animate", "PARAM", "the state option swept", a.param), std::string(kNeedsParameter)),
      needed(number_flag("--from", "A", "its value in the first frame", a.from), needs(a, "--from A and --to B")),
      needed(number_flag("--to", "B", "its value in the last frame", a.to), needs(a, "--from A and --to B")),
      needed({"--frames", "N", "frames (2 to " + std::to_string(kMaxSweepFrames) + ")",
              [&a](std::string_view v) -> Status {
                auto n = parse_integer(v, "--frames", 2, kMaxSweepFrames);
                if (!n) return Error{n.error() + " (an animation has at least 2 frames)"};
                a.frames = static_cast<int>(*n);
                return Ok{};
              }},
             needs(a, "--frames N (at least 2)")),
      {"--fps", "F", "frames per second, 0.1 to 240 (24)", [&a](std::string_view v) -> Status {
         auto number = parse_number(v, "--fps");
         if (!number) return Error{number.error()};
         if (!(*number >= 0.1 && *number <= 240.0)) return Error{"--fps must be between 0.1 and 240, got " + std::string(v)};
         a.fps = *number;
         return Ok{};
       }},
      output_flag("--mp4", "FILE", "an MP4 video, H.264 yuv420p", plot::AnimationFormat::Mp4, a),
      output_flag("--gif", "FILE", "a GIF, one palette for all frames", plot::AnimationFormat::Gif, a),
      output_flag("--frames-dir", "DIR", "each frame as DIR/frame-0000.png, …", plot::AnimationFormat::FramesDir, a),
      scale_flag(a.scale),
      {"--size", "WxH", "a video's frame size, the figures in its middle (default: the largest figure's)",
       [&a](std::string_view v) -> Status {
         auto size = parse_pair(v, "--size", 'x', 16, 8192, "1280x720");
         if (!size) return Error{size.error()};
         std::tie(a.width, a.height) = *size;
         return Ok{};
       }},
  };
}

std::string unknown_animation_option(std::string_view name) {
  if (name == "--png" || name == "--svg" || name == "--csv" || name == "--dir" || name == "--step")
    return std::string(name) + " cannot be combined with --animate: give --mp4 FILE, --gif FILE or --frames-dir DIR";
  return "unknown option \"" + std::string(name) + "\" for export --animate";
}

// The options after VIEW, into `state` and `a`; an error is the user's (a usage error).
Status parse_animation_options(ArgParser& p, State& state, AnimationArgs& a) {
  if (auto s = p.parse(animation_flags(a), &state, unknown_animation_option); !s) return s;
  if (a.param.empty()) return Error{std::string(kNeedsParameter)};
  if (!a.from || !a.to) return Error{"--animate " + a.param + " needs --from A and --to B"};
  if (!a.frames) return Error{"--animate " + a.param + " needs --frames N (at least 2)"};
  if (!a.format) return Error{"nothing to write: give --mp4 FILE, --gif FILE or --frames-dir DIR"};
  if (a.width > 0 && *a.format == plot::AnimationFormat::FramesDir)
    return Error{"--size is for --mp4 and --gif; --frames-dir writes each frame as its still"};
  return Ok{};
}

// What the frames are drawn from: the embeddings, a model folder, or both across the sweep; and
// the attention's path as `poslab export` picks it (--backend, the renderer).
struct AnimationInputs {
  Workspace workspace;
  AnimationSource source;
  std::unique_ptr<gpu::HeadlessContext> context;
  std::unique_ptr<gpu::GpuBackend> gpu_backend;
};

Status open_animation_inputs(ViewId view, const State& state, const Sweep& sweep, AnimationInputs& in) {
  bool needs_model = false, needs_embeddings = false;
  for (int k = 0; k < sweep.frames; ++k) {
    const bool m = view_needs_model(view, *sweep_state(state, sweep, k));
    needs_model = needs_model || m;
    needs_embeddings = needs_embeddings || !m;
  }
  in.source.view = view;
  in.source.workspace = &in.workspace;
  if (needs_model) {
    std::error_code ec;
    if (state.embeddings_path.empty() || !std::filesystem::is_directory(state.embeddings_path, ec))
      return Error{"export " + std::string(to_string(view)) + " needs a model folder: --model DIR"};
    auto model = Checkpoint::open(state.embeddings_path);
    if (!model) return Error{model.error()};
    in.source.model = *model;
  }
  if (needs_embeddings) {
    const std::string path = state.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state.embeddings_path;
    if (auto s = in.workspace.load_embeddings(path, state.vocab_path, state.tensor_name); !s) return s;
  }
  auto context = gpu::HeadlessContext::create();
  if (!context) return Error{"an animation needs OpenGL to draw its frames: " + context.error()};
  in.context = std::move(*context);
  const std::string renderer = in.context->description();
  std::string gpu_unavailable;
  if (wants_gpu(state.backend, renderer)) {
    if (auto b = gpu::GpuBackend::create())
      in.gpu_backend = std::move(*b);
    else
      gpu_unavailable = b.error();
  }
  in.workspace.set_gpu_backend(in.gpu_backend.get(), gpu_unavailable, renderer);
  std::fprintf(stderr, "poslab: attention: %s\n",
               choose_backend(state.backend, renderer, in.gpu_backend != nullptr, gpu_unavailable).reason.c_str());
  in.source.gpu = in.gpu_backend.get();
  return Ok{};
}

// The index-like options at the sweep's ends (its values run from one to the other): an index
// past what the input holds is the user's mistake at any frame, not a value to clamp.
Status check_sweep_indices(const ArgParser& p, AnimationInputs& in, const State& state, const Sweep& sweep) {
  const std::string swept = "--" + std::string(sweep.param.name);
  const GivenFlag given = [&](std::string_view name) { return name == swept || flag_given(p, name); };
  for (const int k : {0, sweep.frames - 1}) {
    auto frame = sweep_state(state, sweep, k);
    if (!frame) return Error{frame.error()};
    const auto at_frame = [&](const Status& s) {
      return Error{"frame " + std::to_string(k) + " (" + std::string(sweep.param.name) + " = " + sweep_value_text(sweep, k) +
                   "): " + s.error()};
    };
    if (view_needs_model(in.source.view, *frame)) {
      if (auto s = check_model_indices(*frame, in.source.model->config()); !s) return at_frame(s);
      continue;
    }
    if (auto s = in.workspace.update(*frame); !s) return Ok{};  // the frame itself reports it, as before
    if (auto s = check_given_indices(given, *frame, *in.workspace.results()); !s) return at_frame(s);
  }
  return Ok{};
}

// A video's frames share one size. With --size it is given, and the figures sit where the first
// one is centred; else it is the largest figure's (they can differ by a few pixels as tick labels
// change), measured first.
Result<std::pair<int, int>> canvas_size(const AnimationInputs& in, const State& state, const Sweep& sweep,
                                        const AnimationArgs& a) {
  int width = a.width, height = a.height;
  if (*a.format == plot::AnimationFormat::FramesDir || a.width > 0) return std::pair{width, height};
  for (int k = 0; k < sweep.frames; ++k) {
    auto figure = animation_frame_figure(in.source, state, sweep, k);
    if (!figure) return Error{figure.error()};
    const auto [w, h] = frame_size(*figure, a.scale);
    width = std::max(width, w);
    height = std::max(height, h);
  }
  return std::pair{width, height};
}

// Renders and encodes every frame; on any failure (or Ctrl+C) nothing is left behind.
Status write_frames(AnimationInputs& in, const State& state, const Sweep& sweep, const AnimationArgs& a,
                    std::pair<int, int>& canvas) {
  auto figure_renderer = plot::FigureRenderer::create(a.scale);
  if (!figure_renderer) return Error{figure_renderer.error()};
  auto sink = plot::open_frame_sink(*a.format, a.output, a.fps, sweep.frames);
  if (!sink) return Error{sink.error()};
  const InterruptGuard guard;  // Ctrl+C or SIGTERM stops after the current frame
  // The sink's destructor removes what was written unless it finished.
  const auto done = [&](Status s) {
    sink->reset();
    return s;
  };
  int offset_x = 0, offset_y = 0;
  for (int k = 0; k < sweep.frames; ++k) {
    if (guard.interrupted()) return done(Error{"interrupted; nothing was written"});
    auto image = render_animation_frame(in.source, state, sweep, k, **figure_renderer);
    if (!image) return done(Error{image.error()});
    if (k == 0) {
      if (in.workspace.results() && !view_needs_model(in.source.view, *sweep_state(state, sweep, 0)))
        for (const auto& note : in.workspace.results()->notes) std::fprintf(stderr, "poslab: %s\n", note.c_str());
      if (a.width > 0) {
        offset_x = (a.width - image->width) / 2;
        offset_y = (a.height - image->height) / 2;
      }
      if (*a.format == plot::AnimationFormat::FramesDir) canvas = {image->width, image->height};
      else (*sink)->set_canvas(canvas.first, canvas.second, offset_x, offset_y);
    }
    if (a.width > 0 &&
        (offset_x < 0 || offset_y < 0 || image->width + offset_x > a.width || image->height + offset_y > a.height))
      return done(Error{"frame " + std::to_string(k) + " is " + std::to_string(image->width) + "×" +
                        std::to_string(image->height) + " pixels, larger than --size " + std::to_string(a.width) + "x" +
                        std::to_string(a.height) + " leaves room for: give a larger --size or a smaller --scale"});
    if (auto s = (*sink)->add(*image); !s) return done(Error{a.output + ": " + s.error()});
  }
  if (const Status finished = (*sink)->finish(); !finished) return done(Error{a.output + ": " + finished.error()});
  return done(Ok{});
}

}  // namespace

FlagTable animation_flag_table() { return flag_table(animation_flags); }

int run_animation_export(ArgParser& p) {
  if (p.done()) return usage_error("export needs a view: poslab export patterns --animate base …");
  const std::string_view view_name = p.next();
  const auto view = view_named(view_name);
  if (!view) return usage_error("unknown view \"" + std::string(view_name) + "\" (available: " + view_names() + ")");
  if (*view == ViewId::Tour) return usage_error("the tour cannot be animated; animate the view of a step instead");
  State state;
  AnimationArgs a;
  if (auto s = parse_animation_options(p, state, a); !s) return parse_error(p, s);
  auto sweep = make_sweep(a.param, *a.from, *a.to, *a.frames);
  if (!sweep) return usage_error(sweep.error());
  if (auto s = check_sweep(state, *sweep); !s) return usage_error(s.error());

  // The output is only checked here: the frame sink makes its own temporary file and renames it.
  OutputPlan plan;
  const char* flag = *a.format == plot::AnimationFormat::Mp4 ? "--mp4" : *a.format == plot::AnimationFormat::Gif ? "--gif" : "--frames-dir";
  plan.add_checked(flag, a.output, *a.format == plot::AnimationFormat::FramesDir);
  plan_state_inputs(plan, state);
  if (const int code = prepare_outputs(plan)) return code;

  AnimationInputs inputs;
  if (auto s = open_animation_inputs(*view, state, *sweep, inputs); !s) return runtime_error(s.error());
  if (auto s = check_sweep_indices(p, inputs, state, *sweep); !s) return usage_error(s.error());
  auto canvas = canvas_size(inputs, state, *sweep, a);
  if (!canvas) return runtime_error(canvas.error());
  if (auto s = write_frames(inputs, state, *sweep, a, *canvas); !s) return runtime_error(s.error());
  std::printf("wrote %s (%d frames of %s from %s to %s, %d×%d, %s, %g fps)\n", a.output.c_str(), sweep->frames,
              std::string(sweep->param.name).c_str(), sweep_value_text(*sweep, 0).c_str(),
              sweep_value_text(*sweep, sweep->frames - 1).c_str(), canvas->first, canvas->second,
              std::string(format_name(*a.format)).c_str(), a.fps);
  return 0;
}

}  // namespace poslab

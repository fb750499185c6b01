#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/hub_cli.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <string_view>
#include <vector>

#include "core/attention/backend_choice.hpp"
#include "core/export_data.hpp"
#include "core/formats/formats.hpp"
#include "core/options.hpp"
#include "core/session.hpp"
#include "core/workspace.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/headless.hpp"
#include "figures/assets.hpp"
#include "tokenizer/tokenizer.hpp"
#include "core/tour/tour.hpp"
#include "plot/draw.hpp"
#include "figures/export.hpp"
#include "figures/launch.hpp"
#include "figures/model.hpp"
#include "core/model/model_run.hpp"
#include "figures/attention.hpp"
#include "cli/args.hpp"
#include "cli/train_cli.hpp"
#include "cli/animate_cli.hpp"
#include "cli/papers_cli.hpp"
#include "cli/command_table.hpp"
#include "cli/help.hpp"

namespace poslab {

namespace {

// The command's words before its first option (`export training`, `predict`) when its arguments
// ask for --help (or -h); none otherwise, and none for the GUI (`poslab --help` is the whole help).
std::optional<std::vector<std::string_view>> command_asking_help(const ArgParser& p) {
  const auto asks = [](std::string_view a) { return a == "--help" || a == "-h"; };
  if (p.done() || commands_named({p.args[0]}).empty() || std::none_of(p.args.begin() + 1, p.args.end(), asks))
    return std::nullopt;
  std::vector<std::string_view> words;
  for (std::string_view a : p.args) {
    if (a.starts_with("-") || words.size() == longest_command()) break;
    words.push_back(a);
  }
  return words;
}

// A flag of the GUI whose value is checked by `parse` into the options.
template <typename Parse>
Flag gui_flag(std::string_view name, std::string_view value, std::string help, Parse parse) {
  return {name, value, std::move(help), [parse](std::string_view v) -> Status { return parse(v); }};
}

// The GUI's own options, each declared once.
std::vector<Flag> gui_flags(GuiOptions& o) {
  return {
      gui_flag("--view", "VIEW", "the view whose tab is shown first", [&o](std::string_view v) -> Status {
        const auto view = view_named(v);
        if (!view)
          return Error{"unknown view \"" + std::string(v) + "\" (available: " +
                       view_names_where([](const ViewInfo&) { return true; }) + ")"};
        o.initial_view = *view;
        return Ok{};
      }),
      tour_step_flag(o.tour_step),
      language_flag(o.tour_language),
      text_flag("--screenshot", "FILE.png", "saves the window after --frames frames, then quits", o.screenshot),
      integer_flag("--frames", "N", "frames drawn before --screenshot, counted once a --load has finished; default 5", 1, 100000,
                   o.frames),
      gui_flag("--size", "WxH", "the window's size in pixels (1440x900)", [&o](std::string_view v) -> Status {
        auto size = parse_pair(v, "--size", 'x', 200, 8192, "1440x900");
        if (!size) return Error{size.error()};
        std::tie(o.width, o.height) = *size;
        return Ok{};
      }),
      text_flag("--load", "FILE", "starts loading FILE as the Load button does (on its own thread)", o.load),
      gui_flag("--load-rate", "MB/s",
               "parses text files no faster than a drive of that speed would deliver them (to watch progress and Cancel)",
               [&o](std::string_view v) -> Status {
                 auto rate = parse_number(v, "--load-rate");
                 if (!rate) return Error{rate.error()};
                 if (!(*rate > 0.0)) return Error{"--load-rate expects a positive number of MB/s, got " + std::string(v)};
                 o.load_rate = *rate;
                 return Ok{};
               }),
      text_flag("--frame-log", "FILE.csv",
                "writes frame,ms,loading,rows,computing,drawing,view per frame (computing: the attention runs; drawing: "
                "the view's figure is built, both off the UI thread; view: the tab shown)",
                o.frame_log),
      gui_flag("--ui-scale", "S",
               "draws the interface and its figures at S pixels per point, 0.5 to 4 (default: the UI scale menu's "
               "setting, else the monitor's)",
               [&o](std::string_view v) -> Status {
                 auto scale = parse_number(v, "--ui-scale");
                 if (!scale) return Error{scale.error()};
                 if (!(*scale >= kMinUiScale && *scale <= kMaxUiScale))
                   return Error{"--ui-scale expects pixels per point from 0.5 to 4, got " + std::string(v)};
                 o.ui_scale = static_cast<float>(*scale);
                 return Ok{};
               }),
      text_flag("--probe", "FILE",
                "keeps FILE up to date with where the window's controls are and what it shows (tab-separated lines, "
                "for scripted tests: tests/gui_kit.sh)",
                o.probe),
  };
}

int run_gui_from_args(ArgParser& p, const GuiLauncher& run_gui) {
  GuiOptions options;
  options.remember_session = p.done();  // a plain `poslab` picks up where the last one left off
  const auto unknown = [](std::string_view name) { return "unknown option \"" + std::string(name) + "\""; };
  if (auto s = p.parse(gui_flags(options), &options.state, unknown); !s) return parse_error(p, s);
  // The files the window writes, checked before it opens: a bad one is found now, not at the end.
  OutputPlan plan;
  plan.add_checked("--screenshot", options.screenshot);
  plan.add_checked("--frame-log", options.frame_log);
  plan.add_checked("--probe", options.probe);
  plan.add_input("--load", options.load);
  plan_state_inputs(plan, options.state);
  if (const int code = prepare_outputs(plan)) return code;
  return run_gui(options);
}

}  // namespace

FlagTable gui_flag_table() { return flag_table(gui_flags); }

int run_command_line(int argc, char** argv, const GuiLauncher& run_gui) {
  // Every figure of every command bakes the same glyphs, so the GUI and `poslab export` agree
  // to the pixel whichever view or language was drawn first.
  plot::add_figure_glyphs(tour_japanese_text());
  install_command_line_resolver();  // a --model ORG/NAME may download, and says so on stderr
  ArgParser p;
  for (int k = 1; k < argc; ++k) p.args.emplace_back(argv[k]);
  if (!p.done() && (p.args[0] == "--help" || p.args[0] == "-h")) {
    std::fputs(help_text().c_str(), stdout);
    return 0;
  }
  if (auto words = command_asking_help(p)) {
    const std::string help = command_help(*words);
    std::fputs((help.empty() ? help_text() : help).c_str(), stdout);
    return 0;
  }
  if (!p.done() && p.args[0] == "--version") {
    std::printf("poslab %s\n", POSLAB_VERSION);
    return 0;
  }
  const Command* command = command_for(p.args);
  if (!command) {  // export with a name that is no view: run_export says what it takes
    p.next();
    return run_export(p);
  }
  if (!command->run) return run_gui_from_args(p, run_gui);
  p.i = command->words.size();
  return command->run(p);
}

}  // namespace poslab

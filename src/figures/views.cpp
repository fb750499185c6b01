#include "figures/views.hpp"

#include <cmath>
#include <sstream>

#include "core/export_data.hpp"
#include "figures/attention.hpp"
#include "figures/bias.hpp"
#include "figures/distance.hpp"
#include "figures/dog.hpp"
#include "figures/frequencies.hpp"
#include "figures/magnitude.hpp"
#include "figures/model.hpp"
#include "figures/patterns.hpp"
#include "figures/rope2d.hpp"
#include "figures/rope_image.hpp"
#include "figures/shift.hpp"
#include "figures/tour.hpp"
#include "figures/trajectory.hpp"
#include "plot/heatmap.hpp"

namespace poslab {

namespace {

using Figure = Result<plot::Figure>;
using Csv = Result<std::string>;

int width_of(const ViewInputs& in) { return in.results.problem.width(); }
int rotary_of(const ViewInputs& in) {
  return in.head_dim > 0 ? rotary_width(in.head_dim) : frequencies_rotary_dim(in.state.model, in.results.problem.head_dim());
}
template <class Write>
std::string csv_text(Write&& write) {
  std::ostringstream out;
  write(out);
  return out.str();
}

// --- attention: long sentences get no more cells' texels than the PNG has pixels for them.
Figure attention_export(const ViewInputs& in) {
  plot::HeatmapSpec spec = attention_spec(in.state, in.results, kExportSide);
  spec.max_texels = static_cast<int>(std::ceil(spec.side * in.scale));
  return plot::build_heatmap(spec, plot::figure_text_measure()).figure;
}
Csv attention_data(const ViewInputs& in) {
  return csv_text([&](std::ostream& out) { write_attention_csv(out, in.results); });
}
Figure attention_fill(const ViewInputs& in, plot::Point room, Overflow o) {
  return plot::build_heatmap(attention_spec_to_fill(in.state, in.results, room, o), plot::figure_text_measure()).figure;
}

Figure dog_export(const ViewInputs& in) { return dog_figure(in.state, in.table, 640.0f); }
Csv dog_data_csv(const ViewInputs& in) { return dog_csv(in.state, in.table); }
Figure dog_fill(const ViewInputs& in, plot::Point room, Overflow o) { return dog_figure_to_fill(in.state, in.table, room, o); }

Figure patterns_export(const ViewInputs& in) { return patterns_figure(in.state.model, width_of(in), 320.0f); }
Csv patterns_data(const ViewInputs& in) { return patterns_csv(in.state.model, width_of(in)); }
Figure patterns_fill(const ViewInputs& in, plot::Point room, Overflow o) {
  return patterns_figure_to_fill(in.state.model, width_of(in), room, o);
}

Figure trajectory_export(const ViewInputs& in) { return trajectory_figure(in.state, in.results, 300.0f); }
Csv trajectory_data(const ViewInputs& in) { return trajectory_csv(in.state, in.results); }
Figure trajectory_fill(const ViewInputs& in, plot::Point room, Overflow o) {
  return trajectory_figure_to_fill(in.state, in.results, room, o);
}

Figure magnitude_export(const ViewInputs& in) { return magnitude_figure(in.state.model, in.results, 640.0f, 360.0f).figure; }
// Tidy: one row per (encoding, position); the embedding norm is the same on every row.
Csv magnitude_data_csv(const ViewInputs& in) {
  const MagnitudeData data = magnitude_data(in.state.model, in.results, kMagnitudePositions);
  return csv_text([&](std::ostream& csv) {
    csv << "encoding,position,pe_norm,embedding_norm\n";
    for (const auto& [name, norms] : data.norms)
      for (std::size_t p = 0; p < norms.size(); ++p)
        csv << csv_field(name) << ',' << p << ',' << format_float(static_cast<float>(norms[p])) << ','
            << format_float(static_cast<float>(data.embedding_norm)) << '\n';
  });
}
Figure magnitude_fill(const ViewInputs& in, plot::Point room, Overflow o) {
  return magnitude_figure_to_fill(in.state.model, in.results, room, o).figure;
}

Figure shift_export(const ViewInputs& in) { return shift_figure(in.state, width_of(in), 520.0f, 320.0f); }
Csv shift_data(const ViewInputs& in) { return shift_csv(in.state, width_of(in)); }
Figure shift_fill(const ViewInputs& in, plot::Point room, Overflow o) { return shift_figure_to_fill(in.state, width_of(in), room, o); }

Figure rope2d_export(const ViewInputs& in) { return rope2d_figure(in.state); }
Csv rope2d_data(const ViewInputs& in) { return rope2d_csv(in.state); }
Figure rope2d_fill(const ViewInputs& in, plot::Point room, Overflow o) { return rope2d_figure_to_fill(in.state, room, o); }

Figure rope_image_export(const ViewInputs& in) { return rope_image_figure(in.state, 420.0f); }
Csv rope_image_data(const ViewInputs& in) { return rope_image_csv(in.state); }
Figure rope_image_fill(const ViewInputs& in, plot::Point room, Overflow o) {
  return rope_image_panels_to_fill(in.state, room, o).figure;
}

Figure bias_export(const ViewInputs& in) { return bias_figure(in.state, in.results, kExportSide); }
Csv bias_data(const ViewInputs& in) {
  return csv_text([&](std::ostream& out) { write_bias_csv(out, in.state.model, in.results); });
}
Figure bias_fill(const ViewInputs& in, plot::Point room, Overflow o) { return bias_figure_to_fill(in.state, in.results, room, o); }

Figure frequencies_export(const ViewInputs& in) {
  return frequencies_figure(in.state.model, rotary_of(in), in.results.problem.queries(), 640.0f, 360.0f).figure;
}
Csv frequencies_data(const ViewInputs& in) {
  return csv_text([&](std::ostream& out) {
    write_frequencies_csv(out, in.state.model, rotary_of(in), in.results.problem.queries());
  });
}
Figure frequencies_fill(const ViewInputs& in, plot::Point room, Overflow o) {
  return frequencies_figure_to_fill(in.state.model, rotary_of(in), in.results.problem.queries(), room, o).figure;
}

Figure distance_export(const ViewInputs& in) { return distance_export_figure(in.results); }
Csv distance_data(const ViewInputs& in) { return distance_csv(in.results); }

Figure tour_export(const ViewInputs& in) {
  return tour_figure(in.tour_step, in.language, in.state, in.results, in.table);
}
Csv tour_data(const ViewInputs& in) { return tour_csv(in.language, in.state, in.table); }

// --- a model's views, from the state's forward pass (ModelViewInputs::run).
using ModelOutput = Result<ModelViewOutput>;
ModelOutput model_attention_output(const ModelViewInputs& in) {
  std::ostringstream csv;
  if (in.csv) {
    const Results layer = layer_results(in.run->shown(), in.run->request.layer, in.config, "");
    if (auto s = check_attention_csv_memory(layer); !s) return Error{s.error()};
    write_attention_csv(csv, layer);
  }
  return ModelViewOutput{model_attention_figure(in.state, *in.run, in.config, kExportSide), csv.str()};
}
ModelOutput heads_output(const ModelViewInputs& in) {
  return ModelViewOutput{heads_figure(*in.run, in.config, kHeadThumbSide).figure, heads_csv(*in.run)};
}
ModelOutput frequency_usage_output(const ModelViewInputs& in) {
  return ModelViewOutput{frequency_usage_figure(*in.run, in.config, kExportSide).figure, frequency_usage_csv(*in.run)};
}
ModelOutput sinks_output(const ModelViewInputs& in) {
  return ModelViewOutput{sinks_figure(*in.run, in.config, kExportSide).figure, sinks_csv(*in.run)};
}
ModelOutput activations_output(const ModelViewInputs& in) {
  return ModelViewOutput{activations_figure(*in.run, in.config), activations_csv(*in.run)};
}
ModelOutput pair_scores_view_output(const ModelViewInputs& in) { return pair_scores_output(in.state, *in.run, in.config); }
// --- from the config alone, and from sentences the model runs itself.
ModelOutput mrope_output(const ModelViewInputs& in) { return mrope_view_output(in.state, in.config); }
ModelOutput position_probe_view_output(const ModelViewInputs& in) {
  if (!in.model) return Error{"position-probe runs the model over sentences of its own: it needs the model"};
  return position_probe_output(in.state, *in.model);
}

}  // namespace

const std::vector<ViewInfo>& view_registry() {
  using enum ViewId;
  constexpr ViewNeeds Embeddings = ViewNeeds::Embeddings, NeedsModel = ViewNeeds::Model,
                      TrainedModels = ViewNeeds::TrainedModels;
  constexpr ViewSweep base_sweep{"base", 100.0, 100000.0, "base"};
  static const std::vector<ViewInfo> views{
      {.id = Attention, .name = "attention", .tab = "Attention", .home = Attention, .needs = Embeddings,
       .in_all_views = true, .figure = attention_export, .csv = attention_data, .figure_to_fill = attention_fill,
       .model_output = model_attention_output, .forward_pass = true,
       .sweeps = {{"head", 0.0, 4.0, "head"}, {"factor", 1.0, 8.0, "scaling factor"}, base_sweep, {"layer", 0.0, 1.0, "layer"}}},
      {.id = Dog, .name = "dog", .tab = "Dog", .home = Dog, .needs = Embeddings, .in_all_views = true,
       .figure = dog_export, .csv = dog_data_csv, .figure_to_fill = dog_fill, .sweeps = {{"permute", 0.0, 20.0, "shuffle seed"}}},
      {.id = Patterns, .name = "patterns", .tab = "Patterns", .home = Patterns, .needs = Embeddings, .in_all_views = true,
       .figure = patterns_export, .csv = patterns_data, .figure_to_fill = patterns_fill, .sweeps = {base_sweep}},
      {.id = Trajectory, .name = "trajectory", .tab = "Trajectory", .home = Trajectory, .needs = Embeddings,
       .in_all_views = true, .figure = trajectory_export, .csv = trajectory_data, .figure_to_fill = trajectory_fill,
       .sweeps = {{"positions", 2.0, 64.0, "positions"}, base_sweep}},
      {.id = Magnitude, .name = "magnitude", .tab = "Magnitude", .home = Magnitude, .needs = Embeddings,
       .in_all_views = true, .figure = magnitude_export, .csv = magnitude_data_csv, .figure_to_fill = magnitude_fill,
       .sweeps = {base_sweep}},
      {.id = Shift, .name = "shift", .tab = "Shift", .home = Shift, .needs = Embeddings, .in_all_views = true,
       .figure = shift_export, .csv = shift_data, .figure_to_fill = shift_fill,
       .sweeps = {{"shift-k", 0.0, 32.0, "offset k"}, base_sweep}},
      {.id = Rope2d, .name = "rope2d", .tab = "RoPE 2-D", .home = Rope2d, .needs = Embeddings, .in_all_views = true,
       .figure = rope2d_export, .csv = rope2d_data, .figure_to_fill = rope2d_fill,
       .sweeps = {{"rope-m", 0.0, 16.0, "m"}, {"rope-n", 0.0, 16.0, "n"}, {"rope-pair", 0.0, 15.0, "pair i"}, base_sweep}},
      {.id = RopeImage, .name = "rope-image", .tab = "RoPE image", .home = RopeImage, .needs = Embeddings,
       .in_all_views = true, .figure = rope_image_export, .csv = rope_image_data, .figure_to_fill = rope_image_fill,
       .sweeps = {{"patch-x", 0.0, 13.0, "patch x"}, {"patch-y", 0.0, 13.0, "patch y"}}},
      {.id = Bias, .name = "bias", .tab = "Bias", .home = Bias, .needs = Embeddings, .in_all_views = true,
       .figure = bias_export, .csv = bias_data, .figure_to_fill = bias_fill,
       .sweeps = {{"max-distance", 8.0, 256.0, "max distance"}, {"buckets", 4.0, 64.0, "buckets"}}},
      {.id = Frequencies, .name = "frequencies", .tab = "Frequencies", .home = Frequencies, .needs = Embeddings,
       .in_all_views = true, .figure = frequencies_export, .csv = frequencies_data, .figure_to_fill = frequencies_fill,
       .sweeps = {{"factor", 1.0, 16.0, "scaling factor"}, {"base", 500.0, 500000.0, "base"}}},
      {.id = Distance, .name = "distance", .tab = "Distance", .home = Distance, .needs = Embeddings, .in_all_views = true,
       .figure = distance_export, .csv = distance_data},
      {.id = Tour, .name = "tour", .tab = "Tour", .home = Tour, .needs = Embeddings, .figure = tour_export, .csv = tour_data},
      // The Model tab exports its heads.
      {.id = Model, .name = "model", .tab = "Model", .home = Model, .needs = NeedsModel, .model_output = heads_output,
       .forward_pass = true},
      {.id = Train, .name = "train", .tab = "Train", .home = Train, .needs = TrainedModels},
      {.id = Papers, .name = "papers", .tab = "Papers", .home = Papers, .needs = ViewNeeds::Papers},
      {.id = Heads, .name = "heads", .tab = "Model", .home = Model, .needs = NeedsModel, .in_all_views = true,
       .model_output = heads_output, .forward_pass = true, .reads_scores = false},
      {.id = FrequencyUsage, .name = "frequency-usage", .tab = "Model", .home = Model, .needs = NeedsModel,
       .in_all_views = true, .model_output = frequency_usage_output, .forward_pass = true},
      {.id = Mrope, .name = "mrope", .tab = "Model", .home = Model, .needs = NeedsModel, .model_output = mrope_output},
      {.id = Sinks, .name = "sinks", .tab = "Model", .home = Model, .needs = NeedsModel, .model_output = sinks_output,
       .forward_pass = true},
      {.id = Activations, .name = "activations", .tab = "Model", .home = Model, .needs = NeedsModel,
       .model_output = activations_output, .forward_pass = true},
      {.id = PairScores, .name = "pair-scores", .tab = "Model", .home = Model, .needs = NeedsModel,
       .model_output = pair_scores_view_output, .forward_pass = true},
      {.id = PositionProbe, .name = "position-probe", .tab = "Model", .home = Model, .needs = NeedsModel,
       .model_output = position_probe_view_output},
      {.id = Training, .name = "training", .tab = "Model", .home = Model, .needs = ViewNeeds::Revisions},
      {.id = Extrapolation, .name = "extrapolation", .tab = "Train", .home = Train, .needs = TrainedModels},
  };
  return views;
}

const ViewInfo& view_info(ViewId view) {
  for (const ViewInfo& v : view_registry())
    if (v.id == view) return v;
  return view_registry().front();  // unreachable: every id has a row
}

std::optional<ViewId> view_named(std::string_view name) {
  for (const ViewInfo& v : view_registry())
    if (v.name == name) return v.id;
  return std::nullopt;
}

std::string view_names_where(bool (*filter)(const ViewInfo&)) {
  std::string names;
  for (const ViewInfo& v : view_registry())
    if (filter(v)) names += (names.empty() ? "" : ", ") + std::string(v.name);
  return names;
}

bool view_exports(const ViewInfo& view) { return !view.is_tab() || view.figure; }

std::string needs_message(const ViewInfo& view) {
  if (view.needs == ViewNeeds::Papers) return "the papers' checks are drawn by poslab export paper --id ID (poslab papers lists them)";
  if (view.needs == ViewNeeds::TrainedModels)
    return "the " + std::string(view.name) + " view needs trained models (--models DIR,DIR,...)";
  if (view.needs == ViewNeeds::Revisions)
    return "the " + std::string(view.name) + " view needs a Hub model's revisions (--model ORG/NAME --revisions R,R,...)";
  return "the " + std::string(view.name) + " view needs a model folder (--model DIR)";
}

}  // namespace poslab

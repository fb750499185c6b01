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

}  // namespace

const std::vector<ViewInfo>& view_registry() {
  using enum ViewId;
  constexpr ViewNeeds Embeddings = ViewNeeds::Embeddings, NeedsModel = ViewNeeds::Model,
                      TrainedModels = ViewNeeds::TrainedModels;
  static const std::vector<ViewInfo> views{
      {Attention, "attention", "Attention", Attention, Embeddings, true, attention_export, attention_data, attention_fill},
      {Dog, "dog", "Dog", Dog, Embeddings, true, dog_export, dog_data_csv, dog_fill},
      {Patterns, "patterns", "Patterns", Patterns, Embeddings, true, patterns_export, patterns_data, patterns_fill},
      {Trajectory, "trajectory", "Trajectory", Trajectory, Embeddings, true, trajectory_export, trajectory_data,
       trajectory_fill},
      {Magnitude, "magnitude", "Magnitude", Magnitude, Embeddings, true, magnitude_export, magnitude_data_csv,
       magnitude_fill},
      {Shift, "shift", "Shift", Shift, Embeddings, true, shift_export, shift_data, shift_fill},
      {Rope2d, "rope2d", "RoPE 2-D", Rope2d, Embeddings, true, rope2d_export, rope2d_data, rope2d_fill},
      {RopeImage, "rope-image", "RoPE image", RopeImage, Embeddings, true, rope_image_export, rope_image_data,
       rope_image_fill},
      {Bias, "bias", "Bias", Bias, Embeddings, true, bias_export, bias_data, bias_fill},
      {Frequencies, "frequencies", "Frequencies", Frequencies, Embeddings, true, frequencies_export, frequencies_data,
       frequencies_fill},
      {Distance, "distance", "Distance", Distance, Embeddings, true, distance_export, distance_data, nullptr},
      {Tour, "tour", "Tour", Tour, Embeddings, false, tour_export, tour_data, nullptr},
      {Model, "model", "Model", Model, NeedsModel, false},
      {Train, "train", "Train", Train, TrainedModels, false},
      {Papers, "papers", "Papers", Papers, ViewNeeds::Papers, false},
      {Heads, "heads", "Model", Model, NeedsModel, false},
      {FrequencyUsage, "frequency-usage", "Model", Model, NeedsModel, false},
      {Mrope, "mrope", "Model", Model, NeedsModel, false},
      {Sinks, "sinks", "Model", Model, NeedsModel, false},
      {Activations, "activations", "Model", Model, NeedsModel, false},
      {PairScores, "pair-scores", "Model", Model, NeedsModel, false},
      {PositionProbe, "position-probe", "Model", Model, NeedsModel, false},
      {Extrapolation, "extrapolation", "Train", Train, TrainedModels, false},
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

std::string needs_message(const ViewInfo& view) {
  if (view.needs == ViewNeeds::Papers) return "the papers' checks are drawn by poslab export paper --id ID (poslab papers lists them)";
  if (view.needs == ViewNeeds::TrainedModels)
    return "the " + std::string(view.name) + " view needs trained models (--models DIR,DIR,...)";
  return "the " + std::string(view.name) + " view needs a model folder (--model DIR)";
}

}  // namespace poslab

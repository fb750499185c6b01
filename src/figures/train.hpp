#pragma once
// The Train tab: tiny transformers that differ only in their positional encoding, trained on a
// worker thread (live loss curves, Stop), then the length-extrapolation plot (train short, test
// long: the ALiBi paper's figure), and any trained model opened in the Model and Attention tabs.
// The figures are also `poslab export extrapolation`'s.
#include <filesystem>
#include <string>
#include <vector>

#include "core/state.hpp"
#include "core/train/train_worker.hpp"
#include "plot/draw.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

// The encodings the Train tab trains, in the order of its checkboxes and of the figures' colours.
inline constexpr PositionKind kTrainedEncodings[] = {PositionKind::None, PositionKind::Sinusoidal, PositionKind::Learned,
                                                     PositionKind::Rope,  PositionKind::Alibi,      PositionKind::T5};

// Export size of one panel's plotting area (logical pixels).
inline constexpr plot::Point kExtrapolationPanel{420.0f, 240.0f};

// Accuracy (top) and loss (bottom) against evaluation length on log axes, the training lengths
// marked: the encodings as trained on the left; on the right, when there are RoPE models, RoPE
// with each context scaling applied at inference.
plot::Figure extrapolation_figure(const std::vector<ExtrapolationCurve>& curves, plot::Point panel);

// Training loss against step, one line per run (log scale).
plot::LinePlotFigure training_loss_figure(const std::vector<TrainProgress::Run>& runs, plot::Point area);

// The folder the shipped pre-trained models live in (assets/trained), and its models.
std::filesystem::path shipped_models_folder();
std::vector<std::filesystem::path> shipped_models();

// Where the Train tab saves: $XDG_DATA_HOME/poslab/trained (absolute only), else
// ~/.local/share/poslab/trained.
std::filesystem::path default_train_folder();

// The state that shows a trained model's heads: `--model DIR` applied, its last layer, and as the
// sentence a seeded sequence of the model's task at its training length ("hbk…|hbk…" for copy).
Result<State> state_for_trained_model(State state, const std::filesystem::path& dir);
// That sequence alone.
std::string task_example(const TrainedModel& model);

// A file's bytes; empty when it cannot be read (a table not written yet).
std::string read_text_file(const std::filesystem::path& path);

}  // namespace poslab

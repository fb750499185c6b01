#pragma once
// Every tab's GUI part, one member each, and which of them is still building its figure.
#include "gui/views/attention_view.hpp"
#include "gui/views/bias_view.hpp"
#include "gui/views/distance_view.hpp"
#include "gui/views/dog_view.hpp"
#include "gui/views/frequencies_view.hpp"
#include "gui/views/magnitude_view.hpp"
#include "gui/views/model_view.hpp"
#include "gui/views/papers_view.hpp"
#include "gui/views/patterns_view.hpp"
#include "gui/views/rope2d_view.hpp"
#include "gui/views/rope_image_view.hpp"
#include "gui/views/shift_view.hpp"
#include "gui/views/tour_view.hpp"
#include "gui/views/train_view.hpp"
#include "gui/views/trajectory_view.hpp"

namespace poslab {

struct Views {
  AttentionView attention;
  DogView dog;
  PatternsView patterns;
  TrajectoryView trajectory;
  MagnitudeView magnitude;
  ShiftView shift;
  Rope2dView rope2d;
  RopeImageView rope_image;
  BiasView bias;
  FrequenciesView frequencies;
  DistanceView distance;
  TourView tour;
  ModelView model;
  TrainView train;
  PapersView papers;

  // Whether the tab's figure is still being built off the UI thread (or its run still going).
  bool busy(ViewId view) const {
    switch (view) {
      case ViewId::Dog: return dog.busy();
      case ViewId::Patterns: return patterns.busy();
      case ViewId::Trajectory: return trajectory.busy();
      case ViewId::Magnitude: return magnitude.busy();
      case ViewId::Shift: return shift.busy();
      case ViewId::Rope2d: return rope2d.busy();
      case ViewId::RopeImage: return rope_image.busy();
      case ViewId::Bias: return bias.busy();
      case ViewId::Frequencies: return frequencies.busy();
      case ViewId::Distance: return distance.busy();
      case ViewId::Tour: return tour.busy();
      case ViewId::Papers: return papers.busy();
      default: return false;
    }
  }
};

}  // namespace poslab

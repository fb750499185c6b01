// The Model tab's figures (figures/model): every text inside the figure's width, the captions of a
// changed model's grid (which list its interventions, and can be long) included.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/model/checkpoint.hpp"
#include "core/model/model_run.hpp"
#include "figures/model.hpp"
#include "plot/draw.hpp"

namespace poslab {
namespace {

TEST(HeadsFigure, EveryCaptionFitsInsideTheFigure) {
  auto model = Checkpoint::open(std::filesystem::path(POSLAB_MODEL_REFERENCE) / "qwen2");
  ASSERT_TRUE(model) << model.error();
  ModelRequest request;
  request.sentence = "the dog sat on the mat";
  request.layer = 0;
  // Every intervention at once: the changed grid's caption names them all.
  request.intervention.rope_theta = 123456.0;
  request.intervention.pairing = RopeStyle::Interleaved;
  request.intervention.rotary_dim = 4;
  request.intervention.position_shift = 7;
  request.shuffle_seed = 3;
  auto run = run_model(**model, request);
  ASSERT_TRUE(run) << run.error();
  const HeadsFigure heads = heads_figure(*run, (*model)->config(), 56.0f);
  ASSERT_FALSE(heads.figure.texts.empty());
  for (const plot::TextItem& t : heads.figure.texts) {
    if (t.vertical || t.h != plot::HAlign::Left) continue;
    const float right = t.anchor.x + plot::figure_text_measure().width(t.text, t.size);
    EXPECT_LE(right, heads.figure.width + 0.5f) << "\"" << t.text << "\" runs past the figure's edge";
  }
}

}  // namespace
}  // namespace poslab

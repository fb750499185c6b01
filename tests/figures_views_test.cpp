// The view registry: every view a row, and each row saying how it is drawn.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/animate/sweep.hpp"
#include "figures/views.hpp"

namespace poslab {
namespace {

TEST(ViewRegistry, EveryViewHasOneRowAndOneName) {
  std::set<std::string_view> names;
  std::set<ViewId> ids;
  for (const ViewInfo& v : view_registry()) {
    EXPECT_TRUE(names.insert(v.name).second) << v.name;
    EXPECT_TRUE(ids.insert(v.id).second) << v.name;
    EXPECT_EQ(view_named(v.name), v.id) << v.name;
    EXPECT_EQ(&view_info(v.id), &v) << v.name;
  }
  // Every identifier from the first to the last has its row.
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(ViewId::Extrapolation) + 1);
  EXPECT_FALSE(view_named("nonsense"));
}

TEST(ViewRegistry, EachRowSaysHowItIsDrawnAndInWhichTab) {
  for (const ViewInfo& v : view_registry()) {
    EXPECT_TRUE(view_info(v.home).is_tab()) << v.name << " is drawn in " << view_info(v.home).name;
    EXPECT_EQ(v.tab, view_info(v.home).tab) << v.name;
    const bool tab_of_others = v.is_tab() && !v.figure;
    switch (v.needs) {
      case ViewNeeds::Embeddings:
        EXPECT_TRUE(v.figure && v.csv) << v.name;
        break;
      case ViewNeeds::Model:
        // A model's view draws from its run or from the model; the tab exports its heads.
        EXPECT_TRUE(v.model_output) << v.name;
        EXPECT_EQ(v.home, ViewId::Model) << v.name;
        break;
      case ViewNeeds::TrainedModels:
      case ViewNeeds::Revisions:
      case ViewNeeds::Papers:
        // Drawn by commands with options of their own (export extrapolation, export training, export paper).
        EXPECT_FALSE(v.figure || v.model_output) << v.name;
        break;
    }
    EXPECT_EQ(view_exports(v), !tab_of_others) << v.name;
    if (v.in_all_views) EXPECT_TRUE(v.figure || (v.model_output && v.forward_pass)) << v.name;
  }
}

TEST(ViewRegistry, EverySweepOfAViewIsAnAnimatableOption) {
  int views_with_sweeps = 0;
  for (const ViewInfo& v : view_registry()) {
    views_with_sweeps += !v.sweeps.empty();
    for (const ViewSweep& s : v.sweeps) {
      EXPECT_TRUE(find_sweep_param(s.param).ok()) << v.name << " " << s.param;
      EXPECT_LT(s.from, s.to) << v.name << " " << s.param;
    }
  }
  // Every explorer tab but distance plays something.
  EXPECT_EQ(views_with_sweeps, 10);
  EXPECT_TRUE(view_info(ViewId::Distance).sweeps.empty());
}

}  // namespace
}  // namespace poslab

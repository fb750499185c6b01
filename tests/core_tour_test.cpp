// The tour's live checks: each passes on the defaults, and fails when its claim does not hold.
#include <gtest/gtest.h>

#include "core/tour/tour.hpp"

using namespace poslab;

namespace {
const EmbeddingTable& glove() {
  static const EmbeddingTable table = *load_text_embeddings(std::string(POSLAB_ASSETS) + "/glove-wink-100d-10k.txt");
  return table;
}
}  // namespace

TEST(Tour, EveryLiveCheckPassesWithTheDefaults) {
  const auto& steps = tour_steps();
  ASSERT_EQ(steps.size(), 12u);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const TourCheck check = steps[k].check(tour_state(static_cast<int>(k), State{}), glove(), Language::En);
    EXPECT_TRUE(check.pass) << "step " << k + 1 << ": " << check.measured;
    EXPECT_FALSE(check.measured.empty());
  }
}

TEST(Tour, TextsHaveTwelveStepsInBothLanguages) {
  for (Language language : {Language::En, Language::Ja}) {
    const auto& texts = tour_texts(language);
    ASSERT_EQ(texts.size(), tour_steps().size());
    for (const TourText& t : texts) {
      EXPECT_FALSE(t.title.empty());
      EXPECT_FALSE(t.check.empty());
      EXPECT_FALSE(t.formulas.empty()) << t.title;
      // Three to six sentences (a sentence ends with . ! ? or 。).
      int sentences = 0;
      for (std::size_t i = 0; i < t.body.size(); ++i) {
        if (t.body.compare(i, 3, "。") == 0) ++sentences;
        else if ((t.body[i] == '.' || t.body[i] == '!' || t.body[i] == '?') && (i + 1 == t.body.size() || t.body[i + 1] == ' '))
          ++sentences;
      }
      EXPECT_GE(sentences, 3) << t.title;
      EXPECT_LE(sentences, 7) << t.title;  // an "e.g." or "al." may count once too often
    }
  }
}

// The measured lines are printf formats filled with the same numbers in either language: their
// conversions must agree one for one, or a Japanese line would print the wrong number.
TEST(Tour, MeasuredFormatsHaveTheSameConversionsInBothLanguages) {
  const auto conversions = [](const std::string& format) {
    std::vector<std::string> out;
    for (std::size_t i = format.find('%'); i != std::string::npos; i = format.find('%', i + 1)) {
      std::size_t end = i + 1;
      while (end < format.size() && std::string("0123456789.-+ #").find(format[end]) != std::string::npos) ++end;
      out.push_back(format.substr(i, end + 1 - i));
      i = end;
    }
    return out;
  };
  const auto& en = tour_measured_formats(Language::En);
  const auto& ja = tour_measured_formats(Language::Ja);
  ASSERT_EQ(en.size(), tour_steps().size());
  ASSERT_EQ(ja.size(), en.size());
  for (std::size_t k = 0; k < en.size(); ++k) {
    EXPECT_FALSE(conversions(en[k]).empty()) << "step " << k + 1;
    EXPECT_EQ(conversions(en[k]), conversions(ja[k])) << "step " << k + 1;
  }
}

TEST(Tour, JapaneseChecksPrintJapaneseWordsAndTheSameNumbers) {
  const auto& steps = tour_steps();
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const State s = tour_state(static_cast<int>(k), State{});
    const TourCheck en = steps[k].check(s, glove(), Language::En), ja = steps[k].check(s, glove(), Language::Ja);
    EXPECT_EQ(en.pass, ja.pass) << "step " << k + 1;
    if (k != 6) EXPECT_NE(en.measured, ja.measured) << "step " << k + 1;  // step 7's line is all symbols
  }
}

TEST(Tour, IntegerCheckFailsWhenTheEmbeddingsOutweighThePositions) {
  // With embeddings a hundred times larger, the integer positions no longer swamp them.
  const EmbeddingTable big(std::vector<std::string>{"the", "dog", "chased", "another"}, Matrix::Constant(4, 100, 10.0f), "big");
  const TourCheck check = tour_steps()[2].check(tour_state(2, State{}), big, Language::En);
  EXPECT_FALSE(check.pass) << check.measured;
}

TEST(Tour, RelativeCheckNeedsThreeTokens) {
  State s = tour_state(7, State{});
  s.model.sentence = "dog chased";
  EXPECT_FALSE(tour_steps()[7].check(s, glove(), Language::En).pass);
}

TEST(Tour, StepStateIsEveryPresetInTurn) {
  const State s = tour_state(11, State{});
  EXPECT_EQ(s.model.base, 500000.0);
  EXPECT_EQ(s.model.scaling.type, RopeScalingType::Llama3);
  EXPECT_EQ(tour_state(0, State{}).model.encoding, EncodingKind::None);
  EXPECT_EQ(tour_state(4, State{}).model.encoding, EncodingKind::Binary);
}

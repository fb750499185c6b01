// The four cases of the dog demo on the shipped embeddings.
#include <gtest/gtest.h>

#include "core/dog.hpp"

using namespace poslab;

TEST(DogCases, OnlyNoPositionsWithoutAMaskIsIdentical) {
  auto table = load_text_embeddings(std::string(POSLAB_ASSETS) + "/glove-wink-100d-10k.txt");
  ASSERT_TRUE(table.ok());
  ModelSettings s;  // "The dog chased another dog", 5 heads, random projections
  auto cases = dog_cases(s, *table);
  ASSERT_TRUE(cases.ok()) << cases.error();
  ASSERT_EQ(cases->size(), 4u);
  EXPECT_TRUE((*cases)[0].comparison.identical());
  for (std::size_t k = 1; k < 4; ++k) EXPECT_FALSE((*cases)[k].comparison.identical()) << (*cases)[k].name;
  EXPECT_EQ((*cases)[0].comparison.a, 1);
  EXPECT_EQ((*cases)[0].comparison.b, 4);
  s.sentence = "The cat sat on a mat";
  EXPECT_FALSE(dog_cases(s, *table).ok());
}

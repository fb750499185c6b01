#include "base/number_text.hpp"

#include <cstdio>

namespace poslab {

std::string number_text(double v, int digits) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, v);
  return text;
}

}  // namespace poslab

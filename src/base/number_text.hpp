#pragma once
// One way to write a number for people: messages, design lines, the session file.
#include <string>

namespace poslab {

// `v` with `digits` significant digits in printf's %g form: "0.5", "1e+06", "nan", "inf" (6: as
// an ostream writes it; 17: a double read back exactly; 9: a float read back exactly).
std::string number_text(double v, int digits = 6);

}  // namespace poslab

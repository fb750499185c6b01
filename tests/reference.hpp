#pragma once
// Reads tests/reference/reference.txt, written by make_reference.py (NumPy, independent of
// PosLab's C++): one matrix per line, `name rows cols values…`.
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/matrix.hpp"

namespace poslab::testing {

inline const Eigen::MatrixXd& reference(const std::string& name) {
  static const std::map<std::string, Eigen::MatrixXd> table = [] {
    std::map<std::string, Eigen::MatrixXd> t;
    std::ifstream in(POSLAB_TEST_REFERENCE);
    if (!in) throw std::runtime_error("cannot open " POSLAB_TEST_REFERENCE);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream s(line);
      std::string key;
      int rows = 0, cols = 0;
      s >> key >> rows >> cols;
      Eigen::MatrixXd m(rows, cols);
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) s >> m(r, c);
      t.emplace(key, m);
    }
    return t;
  }();
  auto it = table.find(name);
  if (it == table.end()) throw std::runtime_error("no reference named " + name);
  return it->second;
}

}  // namespace poslab::testing

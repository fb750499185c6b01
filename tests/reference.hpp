#pragma once
// Reads every tests/reference/*.txt, written by the NumPy scripts beside them (independent of
// PosLab's C++): one matrix per line, `name rows cols values…`; names are unique across files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "base/matrix.hpp"

namespace poslab::testing {

inline const Eigen::MatrixXd& reference(const std::string& name) {
  static const std::map<std::string, Eigen::MatrixXd> table = [] {
    std::map<std::string, Eigen::MatrixXd> t;
    for (const auto& entry : std::filesystem::directory_iterator(POSLAB_TEST_REFERENCE_DIR)) {
      if (entry.path().extension() != ".txt") continue;
      std::ifstream in(entry.path());
      if (!in) throw std::runtime_error("cannot open " + entry.path().string());
      std::string line;
      while (std::getline(in, line)) {
        std::istringstream s(line);
        std::string key;
        int rows = 0, cols = 0;
        s >> key >> rows >> cols;
        Eigen::MatrixXd m(rows, cols);
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < cols; ++c) s >> m(r, c);
        if (!t.emplace(key, m).second) throw std::runtime_error("duplicate reference " + key);
      }
    }
    return t;
  }();
  auto it = table.find(name);
  if (it == table.end()) throw std::runtime_error("no reference named " + name);
  return it->second;
}

// max |a − b| of a float result against a reference; a shape mismatch fails the test.
inline double max_diff(const Matrix& a, const Eigen::MatrixXd& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  if (a.rows() != b.rows() || a.cols() != b.cols()) return 1e9;
  return (a.cast<double>() - b).cwiseAbs().maxCoeff();
}

}  // namespace poslab::testing

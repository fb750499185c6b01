#pragma once
// A value or a message for the user. Errors a user can cause travel as Result, never as
// exceptions across layers, so that the caller can keep its previous state.
#include <string>
#include <utility>
#include <variant>

namespace poslab {

struct Error {
  std::string message;
};

template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}    // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<T>(data_); }
  const T& value() const { return std::get<T>(data_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const std::string& error() const { return std::get<Error>(data_).message; }

 private:
  std::variant<T, Error> data_;
};

// For operations that produce nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

}  // namespace poslab

#pragma once
// A command's outputs, planned before its work starts: every path is checked first (distinct from
// the others and from the inputs, writable, a file where a file is wanted and a folder where a
// folder is), each file is written to a temporary file beside its target, and commit() moves all
// of them into place at the end. A plan dropped before commit() removes its temporary files, so a
// failure anywhere leaves every target as it was.
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace poslab {

class OutputPlan {
 public:
  // How an output is written.
  enum class Kind {
    File,           // by the plan: write()/write_stream() into its temporary file, renamed at commit()
    Folder,         // by the caller into staging(); its entries are moved into the folder at commit()
    CheckedFile,    // by a writer that is atomic on its own (a video encoder): only checked
    CheckedFolder,  // likewise, a folder (export all's staging, a video's frames)
  };

  OutputPlan() = default;
  OutputPlan(const OutputPlan&) = delete;
  OutputPlan& operator=(const OutputPlan&) = delete;
  ~OutputPlan();

  // `flag` names the output in messages ("--png"); an empty path is not an output.
  void add(std::string flag, const std::filesystem::path& target, Kind kind = Kind::File);
  void add_folder(std::string flag, const std::filesystem::path& target) { add(std::move(flag), target, Kind::Folder); }
  void add_checked(std::string flag, const std::filesystem::path& target, bool folder = false) {
    add(std::move(flag), target, folder ? Kind::CheckedFolder : Kind::CheckedFile);
  }
  // A file or folder the command reads: no output may name it.
  void add_input(std::string flag, const std::filesystem::path& path);

  // The user's mistakes, found from the names alone (a usage error): two outputs naming one
  // path, an output naming an input.
  Status check_names() const;
  // What the file system says (a runtime error): makes every temporary file and staging folder,
  // which proves each target writable. On failure nothing is left behind.
  Status reserve();
  // check_names() then reserve(), with which of them failed: 2 for the first, 1 for the second.
  struct Problem {
    int exit_code = 0;
    std::string message;
  };
  Problem prepare();

  // Writes a planned file's bytes into its temporary file.
  Status write(const std::filesystem::path& target, std::string_view bytes);
  Status write_stream(const std::filesystem::path& target, const std::function<void(std::ostream&)>& fill);
  // Where a planned folder's files are written before commit().
  std::filesystem::path staging(const std::filesystem::path& target) const;

  // Moves every planned file and folder into place; after a failure the temporary files are gone.
  Status commit();
  // Removes every temporary file and staging folder (the destructor does it unless committed).
  void discard();

  bool empty() const { return outputs_.empty(); }

 private:
  struct Output {
    std::string flag;
    std::filesystem::path target, temp;
    Kind kind = Kind::File;
    bool reserved = false;
  };
  struct Input {
    std::string flag;
    std::filesystem::path path;
  };
  const Output* find(const std::filesystem::path& target) const;
  Status reserve_one(Output& out);
  Status commit_folder(const Output& out);

  std::vector<Output> outputs_;
  std::vector<Input> inputs_;
  bool committed_ = false;
};

}  // namespace poslab

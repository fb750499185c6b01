#include "base/output_plan.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "base/atomic_stream.hpp"

namespace poslab {

namespace fs = std::filesystem;

namespace {

// "runs/rope/" and "runs/rope" are one folder: the trailing separator is dropped.
fs::path normal_path(const fs::path& p) {
  fs::path n = p.lexically_normal();
  if (!n.has_filename() && n.has_parent_path() && n != n.root_path()) n = n.parent_path();
  return n;
}

// Whether two names reach one file: the same path once made absolute with links resolved, or,
// both existing, one file under two names (a hard link).
bool same_place(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  if (!ca.empty() && ca == cb) return true;
  std::error_code e1;
  return fs::exists(a, e1) && fs::exists(b, e1) && fs::equivalent(a, b, e1);
}

fs::path folder_of(const fs::path& target) { return target.has_parent_path() ? target.parent_path() : fs::path("."); }

// The nearest folder that exists at or above `p` (a folder output may create its parents).
fs::path existing_ancestor(fs::path p) {
  std::error_code ec;
  while (!p.empty() && !fs::exists(p, ec)) p = p.parent_path();
  return p.empty() ? fs::path(".") : p;
}

// A hidden name beside `target`, unique to this process and call: ".NAME.poslab-PID-N.tmp".
fs::path temp_beside(const fs::path& folder, const fs::path& target) {
  return folder / ("." + target.filename().string() + ".poslab-" + unique_temp_tag() + ".tmp");
}

std::string errno_text(int err) { return std::generic_category().message(err); }

// Creates an empty file that did not exist; the reason when it cannot be.
Status create_new_file(const fs::path& path, const std::string& name) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return Error{name + ": cannot write in " + folder_of(path).string() + ": " + errno_text(errno)};
  ::close(fd);
  return Ok{};
}

// A file target: its folder exists, it is not a folder, and if it is there it is a plain file.
Status check_file_target(const fs::path& target, const std::string& name) {
  std::error_code ec;
  const fs::path dir = folder_of(target);
  if (!fs::is_directory(dir, ec)) return Error{name + ": the folder " + dir.string() + " does not exist"};
  if (fs::is_directory(target, ec)) return Error{name + ": is a folder"};
  if (fs::exists(target, ec) && !fs::is_regular_file(target, ec))
    return Error{name + ": is not a plain file (a device or a pipe); give a file name"};
  return Ok{};
}

Status check_folder_target(const fs::path& target, const std::string& name) {
  std::error_code ec;
  if (fs::exists(target, ec) && !fs::is_directory(target, ec)) return Error{name + ": is a file, not a folder"};
  return Ok{};
}

}  // namespace

OutputPlan::~OutputPlan() {
  if (!committed_) discard();
}

void OutputPlan::add(std::string flag, const fs::path& target, Kind kind) {
  if (target.empty()) return;
  outputs_.push_back({std::move(flag), normal_path(target), {}, kind, false});
}

void OutputPlan::add_input(std::string flag, const fs::path& path) {
  if (!path.empty()) inputs_.push_back({std::move(flag), normal_path(path)});
}

namespace {

// "--png out.png" in a command's messages; the path alone where no flag named it (the GUI).
std::string label(const std::string& flag, const fs::path& path) {
  return flag.empty() ? path.string() : flag + " " + path.string();
}

}  // namespace

Status OutputPlan::check_names() const {
  for (std::size_t a = 0; a < outputs_.size(); ++a) {
    const std::string name = label(outputs_[a].flag, outputs_[a].target);
    for (std::size_t b = 0; b < a; ++b)
      if (same_place(outputs_[a].target, outputs_[b].target))
        return Error{label(outputs_[b].flag, outputs_[b].target) + " and " + name +
                     " are one file: give each output its own file"};
    for (const Input& in : inputs_)
      if (same_place(outputs_[a].target, in.path))
        return Error{name + " is the input " + label(in.flag, in.path) +
                     ": an output must not replace what the command reads"};
  }
  return Ok{};
}

Status OutputPlan::reserve_one(Output& out) {
  const std::string name = label(out.flag, out.target);
  std::error_code ec;
  switch (out.kind) {
    case Kind::File:
    case Kind::CheckedFile: {
      if (auto s = check_file_target(out.target, name); !s) return s;
      out.temp = temp_beside(folder_of(out.target), out.target);
      if (auto s = create_new_file(out.temp, name); !s) return s;
      if (out.kind == Kind::CheckedFile) fs::remove(out.temp, ec);  // proved writable; its writer makes its own
      out.reserved = out.kind == Kind::File;
      return Ok{};
    }
    case Kind::Folder:
    case Kind::CheckedFolder: {
      if (auto s = check_folder_target(out.target, name); !s) return s;
      // Writable where the files will land: inside the folder when it is there, else where it will be made.
      const bool exists = fs::is_directory(out.target, ec);
      const fs::path where = exists ? out.target : existing_ancestor(folder_of(out.target));
      const fs::path probe = temp_beside(where, out.target);
      if (auto s = create_new_file(probe, ""); !s)
        return Error{name + (exists ? ": cannot write in the folder" : ": cannot create the folder") + s.error()};
      fs::remove(probe, ec);
      if (out.kind == Kind::CheckedFolder) return Ok{};
      out.temp = temp_beside(existing_ancestor(folder_of(out.target)), out.target);
      if (!fs::create_directory(out.temp, ec))
        return Error{name + ": cannot make a folder beside it: " + (ec ? ec.message() : "it exists")};
      out.reserved = true;
      return Ok{};
    }
  }
  return Ok{};
}

Status OutputPlan::reserve() {
  for (Output& out : outputs_) {
    if (out.reserved) continue;
    if (auto s = reserve_one(out); !s) {
      discard();
      return s;
    }
  }
  return Ok{};
}

OutputPlan::Problem OutputPlan::prepare() {
  if (auto s = check_names(); !s) return {2, s.error()};
  if (auto s = reserve(); !s) return {1, s.error()};
  return {};
}

const OutputPlan::Output* OutputPlan::find(const fs::path& target) const {
  const fs::path n = normal_path(target);
  for (const Output& out : outputs_)
    if (out.target == n && out.reserved) return &out;
  return nullptr;
}

Status OutputPlan::write_stream(const fs::path& target, const std::function<void(std::ostream&)>& fill) {
  const Output* out = find(target);
  if (!out || out->kind != Kind::File) return Error{target.string() + ": not a planned output (a bug)"};
  std::ofstream file;
  std::vector<char> buffer(1 << 20);  // large writes: a long CSV's rows arrive in many small pieces
  file.rdbuf()->pubsetbuf(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  file.open(out->temp, std::ios::binary | std::ios::trunc);
  if (!file) return Error{target.string() + ": cannot write in " + folder_of(out->temp).string()};
  fill(file);
  file.flush();
  if (!file) return Error{target.string() + ": write failed (disk full?)"};
  return Ok{};
}

Status OutputPlan::write(const fs::path& target, std::string_view bytes) {
  return write_stream(target, [&](std::ostream& o) { o.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

fs::path OutputPlan::staging(const fs::path& target) const {
  const Output* out = find(target);
  return out && out->kind == Kind::Folder ? out->temp : fs::path();
}

// A folder that is not there yet arrives whole by one rename; one that is keeps what else it
// holds, the new files moved into it one by one.
Status OutputPlan::commit_folder(const Output& out) {
  std::error_code ec;
  const std::string name = out.target.string();
  if (!fs::exists(out.target, ec)) {
    fs::create_directories(folder_of(out.target), ec);
    fs::rename(out.temp, out.target, ec);
    if (ec) return Error{name + ": cannot move into place: " + ec.message()};
    return Ok{};
  }
  for (const auto& entry : fs::directory_iterator(out.temp, ec)) {
    fs::rename(entry.path(), out.target / entry.path().filename(), ec);
    if (ec) return Error{(out.target / entry.path().filename()).string() + ": cannot move into place: " + ec.message()};
  }
  fs::remove_all(out.temp, ec);
  return Ok{};
}

namespace {

// A file moved into place by commit(), and its previous version while the others follow.
struct Placed {
  fs::path target, previous;  // previous: the old version's second name (empty: none kept)
  bool existed = false;       // a file was there before
};

// Puts back what commit() had already moved when a later step fails.
void undo(const std::vector<Placed>& placed) {
  std::error_code ec;
  for (auto it = placed.rbegin(); it != placed.rend(); ++it) {
    if (!it->previous.empty()) fs::rename(it->previous, it->target, ec);
    else if (!it->existed) fs::remove(it->target, ec);
  }
}

}  // namespace

// Every file first, each old version kept under a second hidden name (a hard link) until all of
// them are in place, so a rename that fails half-way puts the earlier ones back: all or none.
// Then the folders (a new one arrives by one rename; into an existing one the files are moved
// one by one, which cannot be undone, so folders go last).
Status OutputPlan::commit() {
  std::error_code ec;
  std::vector<Placed> placed;
  const auto fail = [&](const std::string& message) -> Status {
    undo(placed);
    discard();
    return Error{message};
  };
  for (Output& out : outputs_) {
    if (!out.reserved || out.kind != Kind::File) continue;
    Placed p{out.target, {}, fs::exists(out.target, ec)};
    if (p.existed) {
      p.previous = out.temp.string() + ".old";
      if (::link(out.target.c_str(), p.previous.c_str()) != 0) p.previous.clear();  // no hard links here: no undo
    }
    fs::rename(out.temp, out.target, ec);
    if (ec) {
      if (!p.previous.empty()) fs::remove(p.previous, ec);
      return fail(label(out.flag, out.target) + ": cannot replace the file: " + ec.message());
    }
    out.reserved = false;
    placed.push_back(p);
  }
  for (Output& out : outputs_) {
    if (!out.reserved || out.kind != Kind::Folder) continue;
    if (auto s = commit_folder(out); !s) return fail(s.error());
    out.reserved = false;
  }
  for (const Placed& p : placed)
    if (!p.previous.empty()) fs::remove(p.previous, ec);
  committed_ = true;
  return Ok{};
}

void OutputPlan::discard() {
  std::error_code ec;
  for (Output& out : outputs_) {
    if (!out.reserved) continue;
    if (out.kind == Kind::Folder) fs::remove_all(out.temp, ec);
    else fs::remove(out.temp, ec);
    out.reserved = false;
  }
}

}  // namespace poslab

#include "core/train/folder.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/files.hpp"
#include "core/formats/safetensors.hpp"
#include "core/model/transformer_config.hpp"

namespace poslab {

namespace fs = std::filesystem;
using OrderedJson = nlohmann::ordered_json;

static_assert(std::endian::native == std::endian::little, "safetensors stores little-endian floats");

namespace {

// Saved as plain Llama: RoPE with every pair rotating (p-RoPE needs PosLab's key).
bool is_llama(const TrainModelConfig& c) { return c.positions == PositionKind::Rope && c.rope_fraction >= 1.0; }

std::vector<std::int64_t> file_shape(const TensorSpec& s) {
  if (s.vector) return {s.cols};
  return {s.rows, s.cols};
}

}  // namespace

TrainedModel trained_model(TrainRun run) {
  return TrainedModel{run.model, run.settings.task, run.settings.train_length, run.settings.seed, std::move(run.params)};
}

std::string trained_config_json(const TrainedModel& m) {
  const TrainModelConfig& c = m.model;
  const bool llama = is_llama(c);
  OrderedJson j;
  j["architectures"] = {llama ? "LlamaForCausalLM" : "PosLabForCausalLM"};
  j["model_type"] = llama ? "llama" : "poslab";
  j["vocab_size"] = c.vocab;
  j["hidden_size"] = c.width;
  j["intermediate_size"] = c.mlp();
  j["num_hidden_layers"] = c.layers;
  j["num_attention_heads"] = c.heads;
  j["num_key_value_heads"] = c.heads;
  j["head_dim"] = c.head_dim();
  j["rms_norm_eps"] = c.norm_eps;
  j["hidden_act"] = "silu";
  j["max_position_embeddings"] = c.max_positions;
  j["tie_word_embeddings"] = true;
  j["attention_bias"] = false;
  j["mlp_bias"] = false;
  j["torch_dtype"] = "float32";
  if (c.positions == PositionKind::Rope) {
    j["rope_theta"] = c.rope_theta;
    if (c.partial_rotary < 1.0) j["partial_rotary_factor"] = c.partial_rotary;
  }
  if (!llama) {
    j["poslab_positions"] = std::string(to_string(c.positions));
    if (c.positions == PositionKind::Rope) j["poslab_rope_fraction"] = c.rope_fraction;
    if (c.positions == PositionKind::T5) {
      j["poslab_t5_buckets"] = c.t5_buckets;
      j["poslab_t5_max_distance"] = c.t5_max_distance;
    }
  }
  j["poslab_task"] = std::string(to_string(m.task.kind));
  j["poslab_train_length"] = m.train_length;
  j["poslab_seed"] = m.seed;
  return j.dump(2) + "\n";
}

std::string task_tokenizer_json(const Task& task) {
  OrderedJson vocab = OrderedJson::object();
  for (int id = 0; id < vocab_size(task); ++id) vocab[std::string(1, token_character(task, id))] = id;
  // ByteLevel without its regex: the text is one word; with no merges every character is a token.
  const OrderedJson byte_level = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", false}};
  OrderedJson j;
  j["version"] = "1.0";
  j["truncation"] = nullptr;
  j["padding"] = nullptr;
  j["added_tokens"] = OrderedJson::array();
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = byte_level;
  j["post_processor"] = nullptr;
  j["decoder"] = byte_level;
  j["model"] = {{"type", "BPE"},         {"dropout", nullptr},   {"unk_token", nullptr},
                {"continuing_subword_prefix", nullptr}, {"end_of_word_suffix", nullptr}, {"fuse_unk", false},
                {"byte_fallback", false}, {"ignore_merges", false}, {"vocab", vocab},
                {"merges", OrderedJson::array()}};
  return j.dump(2) + "\n";
}

std::string safetensors_bytes(const Params<float>& p) {
  OrderedJson header;
  header["__metadata__"] = {{"format", "pt"}};
  std::uint64_t offset = 0;
  const std::vector<TensorSpec> specs = p.specs();
  for (const TensorSpec& s : specs) {
    const auto bytes = static_cast<std::uint64_t>(s.rows * s.cols) * 4;
    header[s.name] = {{"dtype", "F32"}, {"shape", file_shape(s)}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data then starts on an 8-byte boundary
  std::string out(8, '\0');
  const auto length = static_cast<std::uint64_t>(text.size());
  std::memcpy(out.data(), &length, 8);
  out += text;
  for (const TensorSpec& s : specs) {
    const Tensor<float>& t = *p.find(s.name);
    out.append(reinterpret_cast<const char*>(t.data), static_cast<std::size_t>(t.size()) * 4);
  }
  return out;
}

Status save_model_folder(const TrainedModel& m, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{dir.string() + ": cannot create the folder (" + ec.message() + ")"};
  if (auto s = write_file_atomic(dir / "config.json", trained_config_json(m)); !s) return s;
  if (auto s = write_file_atomic(dir / "model.safetensors", safetensors_bytes(m.params)); !s) return s;
  return write_file_atomic(dir / "tokenizer.json", task_tokenizer_json(m.task));
}

Result<TrainedModel> load_model_folder(const fs::path& dir) {
  const fs::path config_path = dir / "config.json";
  auto text = read_whole_file(config_path, kJsonConfigFile);
  if (!text) return Error{text.error()};
  auto parsed = parse_transformer_config(*text, config_path.string());
  if (!parsed) return Error{parsed.error()};
  const auto fail = [&](const std::string& why) { return Error{config_path.string() + ": " + why}; };
  if (!parsed->training) return fail("not a model PosLab trained (no poslab_task and poslab_train_length)");
  auto config = train_model_config(*parsed);
  if (!config) return fail(config.error());
  auto kind = parse_task_kind(parsed->training->task);
  if (!kind) return fail(kind.error());
  TrainedModel m{*config, Task{*kind, parsed->vocab - 1}, parsed->training->train_length, parsed->training->seed,
                 Params<float>(*config)};
  if (auto s = validate(m.task); !s) return fail(s.error());

  auto file = SafetensorsFile::open(dir / "model.safetensors");
  if (!file) return Error{file.error()};
  for (const TensorSpec& s : m.params.specs()) {
    const TensorInfo* found = nullptr;
    for (const TensorInfo& info : file->tensors())
      if (info.name == s.name) found = &info;
    if (!found) return Error{file->name() + ": the tensor " + s.name + " is missing"};
    if (found->dtype != "F32" || found->shape != file_shape(s))
      return Error{file->name() + ": " + s.name + " is not F32 of the shape config.json means"};
    const std::string_view bytes = file->bytes(*found);
    std::memcpy(m.params.find(s.name)->data, bytes.data(), bytes.size());
  }
  return m;
}

}  // namespace poslab

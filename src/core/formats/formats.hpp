#pragma once
// Embedding files other than GloVe/word2vec text: word2vec's binary .bin, a NumPy matrix with a
// vocabulary file, and the choice of reader for a file the user picked (load_embeddings_file).
#include <filesystem>
#include <string>
#include <string_view>

#include "core/formats/embeddings.hpp"
#include "base/result.hpp"

namespace poslab {

// Google word2vec binary: an ASCII line "count dim\n", then per word the word's bytes up to a
// space, then dim little-endian float32, optionally followed by '\n'. Errors name the file and
// the record (1-based, "record 2 of 3"); truncated data is reported, never read past.
Result<EmbeddingTable> load_word2vec_binary(const std::filesystem::path& path);

// The same parser on bytes already in memory; `name` is used in messages.
Result<EmbeddingTable> parse_word2vec_binary(std::string_view bytes, const std::string& name);

// A 2-D .npy matrix (read by load_npy_matrix) with one token per row. `vocab` is a text file,
// one token per line, line k naming row k (a trailing '\r' is stripped; an empty line is the
// empty token). With `vocab` empty, NAME.vocab.txt beside NAME.npy is used if it exists;
// otherwise the tokens are the row numbers "0", "1", … (a matrix indexed by token id).
Result<EmbeddingTable> load_npy_embeddings(const std::filesystem::path& npy, const std::filesystem::path& vocab = {});

// One tensor of a .safetensors file as a table whose rows stay in the file (memory-mapped). The
// vocabulary: `vocab`, or NAME.vocab.txt beside it, or a tokenizer.json in the same folder (then
// sentences are split by it), or token ids.
Result<EmbeddingTable> load_safetensors_embeddings(const std::filesystem::path& file, const std::filesystem::path& vocab,
                                                   const std::string& tensor);

// A Hugging Face model folder (or cache folder): the embedding tensor (`tensor`, default
// model.embed_tokens.weight, or GPT-2's wte.weight)
// from model.safetensors, or from the shard model.safetensors.index.json names, and the
// folder's tokenizer.json when there is one.
Result<EmbeddingTable> load_model_folder(const std::filesystem::path& dir, const std::string& tensor);

// Any supported file, by its extension and first bytes: GloVe or word2vec text, word2vec
// binary, NumPy .npy with `vocab` (or NAME.vocab.txt beside it, or token ids), a .safetensors
// tensor (`tensor`, or the one named like embed_tokens, or the only 2-D one) with `vocab`, a
// tokenizer.json beside it, or token ids; or a Hugging Face model folder (model.safetensors or
// its shards, tokenizer.json).
Result<EmbeddingTable> load_embeddings_file(const std::filesystem::path& path, const std::filesystem::path& vocab,
                                            const std::string& tensor = {}, const LoadControl* control = nullptr);

// The folder a path names: itself, or a Hugging Face cache folder's (models--ORG--NAME) snapshot:
// the one refs/main names, else the newest. Its files may be symlinks into blobs/.
Result<std::filesystem::path> resolve_model_folder(const std::filesystem::path& dir);

enum class EmbeddingFormat { GloveText, Word2vecBinary, Npy, Safetensors };

// The reader for a file, from its first bytes (a few hundred are enough) and its extension:
// the .npy magic wins, then .bin, .npy and .safetensors, then content sniffing (a safetensors
// header; a word2vec header followed by binary bytes); anything else is text.
EmbeddingFormat detect_format(const std::filesystem::path& path, std::string_view first_bytes);

}  // namespace poslab

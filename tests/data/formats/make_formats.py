#!/usr/bin/python3
"""Writes the small files that tests/core_formats_test.cpp and tests/core_safetensors_test.cpp
read: word2vec binary, .npy with vocabularies and .safetensors, good and malformed.
Run from anywhere with Debian's python3-numpy:  /usr/bin/python3 tests/data/formats/make_formats.py
Everything is written from the format descriptions with NumPy and the standard library only
(no word2vec, gensim or safetensors package), so the files do not share code with the C++
readers. The expected values are saved beside them as float32 .npy files (*_expected.npy):
  word2vec .bin  header "count dim\\n", per word: utf-8 word, b" ", dim little-endian float32,
                 optionally b"\\n"
  .safetensors   little-endian u64 header length N, N bytes of JSON (padded with spaces),
                 then the tensors' raw little-endian bytes at their data_offsets
  BF16           the upper 16 bits of the float32 (truncation, as the test expects)
"""
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

WORDS = ["the", "über", "x-ray"]
# 3 × 4 values that are not exact in decimal, with a sign change and a tiny one.
VEC = np.array([[0.1, -0.2, 0.3, 1.0 / 3.0],
                [-1.5, 2.75, 1e-8, -123.456],
                [3.14159, -2.71828, 0.0, 42.0]], dtype="<f4")

# 5 × 4 embedding table for the safetensors files (rows are distinct so gathering is visible).
EMB = (np.arange(20, dtype=np.float64).reshape(5, 4) * 0.37 - 3.1).astype("<f4")
EMB[1, 2] = 1.0 / 3.0
EMB[3, 0] = -1e-3
# float16 edge values: ±0, smallest subnormal 2⁻²⁴, largest subnormal 1023·2⁻²⁴, smallest
# normal 2⁻¹⁴, ±65504, 1/3 rounded; the rest ordinary values.
HALF = np.array([[0.0, -0.0, 2.0**-24, 1023 * 2.0**-24],
                 [2.0**-14, 65504.0, -65504.0, 1.0 / 3.0],
                 [-3 * 2.0**-24, 0.5, -1.25, 1000.0],
                 [0.1, -0.1, 7.0, -7.0],
                 [1e-5, -1e-5, 2.0, 3.0]]).astype("<f2")
GATHER = [4, 0, 4, 2]


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def save(name, array):
    np.save(os.path.join(HERE, name), np.ascontiguousarray(array, dtype="<f4"))


def bf16_bits(a):
    """The upper halves of float32 values, as uint16."""
    return (np.ascontiguousarray(a, dtype="<f4").view("<u4") >> 16).astype("<u2")


def bf16_values(a):
    """What those upper halves mean as float32 (lower 16 bits zero)."""
    return (bf16_bits(a).astype("<u4") << 16).view("<f4")


# --- word2vec binary -------------------------------------------------------------------------

def w2v_bytes(words, vectors, newline=True, header=None):
    out = header if header is not None else f"{len(words)} {vectors.shape[1]}\n".encode()
    for w, v in zip(words, vectors):
        out += w.encode("utf-8") + b" " + np.asarray(v, dtype="<f4").tobytes()
        if newline:
            out += b"\n"
    return out


def word2vec_files():
    save("w2v_expected.npy", VEC)
    good = w2v_bytes(WORDS, VEC)
    write("w2v_good.bin", good)
    write("w2v_good_nonl.bin", w2v_bytes(WORDS, VEC, newline=False))
    write("w2v_truncated.bin", good[:-5])  # cuts into the last vector
    write("w2v_bad_header.bin", w2v_bytes(WORDS, VEC, header=b"3 four\n"))
    bad = VEC.copy()
    bad[1, 2] = np.nan  # record 2 of 3, value 3 of 4
    write("w2v_nonfinite.bin", w2v_bytes(WORDS, bad))


# --- .npy with a vocabulary ------------------------------------------------------------------

def npy_files():
    save("emb.npy", VEC)
    write("emb.vocab.txt", b"alpha\r\nbeta\ngamma")  # CRLF, LF, no final newline
    save("ids.npy", np.arange(6).reshape(2, 3))  # no ids.vocab.txt: tokens "0", "1"
    save("short.npy", VEC)
    write("short.vocab.txt", b"one\ntwo\n")  # 2 lines for 3 rows
    write("with_empty_token.txt", b"a\n\nc\n")  # the middle token is ""


# --- safetensors -----------------------------------------------------------------------------

def st_file(tensors, metadata=None, raw_header=None, length=None):
    """tensors: list of (name, dtype, shape, raw bytes), stored one after another."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    data = b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    text += b" " * (-len(text) % 8)  # the reference writer pads to 8 bytes with spaces
    n = len(text) if length is None else length
    return struct.pack("<Q", n) + text + data


def st_good_files():
    other = [("model.norm.weight", "F32", (4,), np.ones(4, "<f4").tobytes()),
             ("lm_head.weight", "F32", (2, 4), np.full((2, 4), 0.5, "<f4").tobytes())]
    meta = {"format": "pt"}
    write("st_f32.safetensors",
          st_file([("model.embed_tokens.weight", "F32", (5, 4), EMB.tobytes())] + other, meta))
    save("st_f32_expected.npy", EMB)
    save("st_f32_gather.npy", EMB[GATHER])

    write("st_f16.safetensors",
          st_file(other + [("model.embed_tokens.weight", "F16", (5, 4), HALF.tobytes())]))
    save("st_f16_expected.npy", HALF.astype("<f4"))
    save("st_f16_gather.npy", HALF.astype("<f4")[GATHER])

    write("st_bf16.safetensors",
          st_file([("model.embed_tokens.weight", "BF16", (5, 4), bf16_bits(EMB).tobytes())], meta))
    save("st_bf16_expected.npy", bf16_values(EMB))
    save("st_bf16_gather.npy", bf16_values(EMB)[GATHER])

    # No embed_tokens, one 2-D tensor: that one is chosen.
    write("st_only_2d.safetensors",
          st_file([("bias", "F32", (2,), np.zeros(2, "<f4").tobytes()),
                   ("wte", "F32", (3, 2), np.arange(6, dtype="<f4").tobytes())]))
    # No embed_tokens, two 2-D tensors: the error lists both.
    write("st_two_2d.safetensors",
          st_file([("a.weight", "F32", (2, 2), np.zeros(4, "<f4").tobytes()),
                   ("b.weight", "F32", (2, 2), np.ones(4, "<f4").tobytes())]))
    # The embed tensor is I32 (unsupported); an unknown dtype is listed too; the file opens.
    write("st_unsupported.safetensors",
          st_file([("model.embed_tokens.weight", "I32", (2, 2), np.arange(4, dtype="<i4").tobytes()),
                   ("other", "F32", (2, 2), np.arange(4, dtype="<f4").tobytes()),
                   ("packed", "Q4_X", (3,), b"\x01\x02\x03\x04\x05")]))
    # BF16 with +inf in row 1.
    nonfinite = np.array([[1.0, 2.0], [3.0, np.inf]], dtype="<f4")
    write("st_nonfinite_bf16.safetensors",
          st_file([("model.embed_tokens.weight", "BF16", (2, 2), bf16_bits(nonfinite).tobytes())]))


def st_entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def st_bad_files():
    f32x4 = np.arange(4, dtype="<f4").tobytes()  # 16 bytes
    good = st_file([("model.embed_tokens.weight", "F32", (2, 2), f32x4)])
    write("bad_short.safetensors", good[:5])
    write("bad_header_past_end.safetensors", st_file([("t", "F32", (2, 2), f32x4)], length=1000))
    write("bad_header_huge.safetensors", st_file([("t", "F32", (2, 2), f32x4)], length=200_000_000))
    write("bad_json.safetensors",
          st_file([], raw_header=b'{"t": {"dtype": "F32", "shape": [2, 2],') + f32x4)
    write("bad_not_object.safetensors", st_file([], raw_header=b"[1, 2, 3]") + f32x4)

    def hand(name, header, data=f32x4):
        write(name, st_file([], raw_header=json.dumps(header).encode()) + data)

    hand("bad_offsets_past_end.safetensors", {"t": st_entry("F32", [2, 2], 0, 16)}, f32x4[:8])
    hand("bad_overlap.safetensors", {"a": st_entry("F32", [2, 2], 0, 16),
                                     "b": st_entry("F32", [2, 2], 8, 24)}, f32x4 + f32x4[:8])
    hand("bad_size_mismatch.safetensors", {"t": st_entry("F32", [2, 3], 0, 16)})
    hand("bad_negative_shape.safetensors", {"t": st_entry("F32", [-2, -2], 0, 16)})
    hand("bad_float_shape.safetensors", {"t": st_entry("F32", [2.0, 2], 0, 16)})
    hand("bad_begin_after_end.safetensors", {"t": st_entry("F32", [0], 16, 0)})
    hand("bad_shape_overflow.safetensors", {"t": st_entry("F32", [2**62, 2**62], 0, 16)})
    hand("bad_missing_offsets.safetensors", {"t": {"dtype": "F32", "shape": [2, 2]}})
    hand("bad_metadata.safetensors", {"__metadata__": {"a": 1}, "t": st_entry("F32", [2, 2], 0, 16)})
    # json.dumps cannot write a key twice; the text is written by hand.
    dup = (b'{"t": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}, '
           b'"t": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}')
    write("bad_duplicate.safetensors", st_file([], raw_header=dup) + f32x4)


def main():
    word2vec_files()
    npy_files()
    st_good_files()
    st_bad_files()


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Writes the small .npy files that tests/core_npy_test.cpp reads, with NumPy's own writers:
good files of every supported version and dtype, and malformed ones.
Run from anywhere with Debian's python3-numpy:  /usr/bin/python3 tests/data/make_npy.py
The values are exact in every dtype used, so the test can name them without rounding:
  m34[r, c] = (r·4 + c)·0.25 − 1.5  (3 × 4)
and the float16 file holds the edge values of binary16 (see HALF_VALUES).
"""
import io
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

M34 = np.arange(12, dtype=np.float64).reshape(3, 4) * 0.25 - 1.5
# 0, −0, smallest subnormal 2⁻²⁴, −3·2⁻²⁴, largest subnormal 1023·2⁻²⁴, smallest normal 2⁻¹⁴,
# 1/3 rounded to binary16, the largest finite 65504 and its negative.
HALF_VALUES = np.array([[0.0, -0.0, 2.0**-24], [-3 * 2.0**-24, 1023 * 2.0**-24, 2.0**-14],
                        [0.333251953125, 65504.0, -65504.0]])


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def npy_bytes(array, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, array)
    else:
        np.lib.format.write_array(buf, array, version=version)
    return buf.getvalue()


def with_header(header_dict_text, data, version=(1, 0)):
    """A file with a hand-written header (NumPy refuses to write these), padded like NumPy."""
    header = header_dict_text.encode("latin1")
    prefix = 10 if version[0] == 1 else 12
    pad = (-(prefix + len(header) + 1)) % 64
    header += b" " * pad + b"\n"
    size = len(header).to_bytes(2 if version[0] == 1 else 4, "little")
    return b"\x93NUMPY" + bytes(version) + size + header + data


def main():
    # Good files.
    write("good_v1_f4.npy", npy_bytes(M34.astype("<f4")))
    write("good_v1_f8.npy", npy_bytes(M34.astype("<f8")))
    write("good_v1_f2.npy", npy_bytes(HALF_VALUES.astype("<f2")))
    write("good_v2_f4.npy", npy_bytes(M34.astype("<f4"), version=(2, 0)))
    write("good_v3_f8.npy", npy_bytes(M34.astype("<f8"), version=(3, 0)))
    write("good_v3_f2.npy", npy_bytes(HALF_VALUES.astype("<f2"), version=(3, 0)))

    # Malformed files.
    good = npy_bytes(M34.astype("<f4"))
    write("bad_truncated.npy", good[:-5])
    write("bad_extra_bytes.npy", good + b"\0\0\0\0")
    write("bad_magic.npy", b"\x93NUMPX" + good[6:])
    write("bad_fortran.npy", npy_bytes(np.asfortranarray(M34.astype("<f4"))))
    write("bad_3d.npy", npy_bytes(np.zeros((2, 3, 4), dtype="<f4")))
    write("bad_1d.npy", npy_bytes(np.zeros(5, dtype="<f4")))
    write("bad_int32.npy", npy_bytes(M34.astype("<i4")))
    write("bad_big_endian.npy", npy_bytes(M34.astype(">f4")))
    # The header length field claims 0xFFFF bytes; the file is far shorter.
    write("bad_header_past_end.npy", good[:8] + b"\xff\xff" + good[10:])
    write("bad_f2_inf.npy", npy_bytes(np.array([[1.0, np.inf]], dtype="<f2")))
    write("bad_f4_nan.npy", npy_bytes(np.array([[1.0], [np.nan]], dtype="<f4")))
    write("bad_header_syntax.npy",
          with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4}", good[128:]))
    write("bad_missing_key.npy", with_header("{'descr': '<f4', 'shape': (3, 4), }", good[128:]))


if __name__ == "__main__":
    main()

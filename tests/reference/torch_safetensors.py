"""A safetensors file from PyTorch tensors, written from the format's definition (an 8-byte
little-endian header length, the JSON header padded with spaces to 8 bytes, the tensors' bytes in
order), for the PyTorch references (train_reference.py, make_bf16_reference.py): float32 tensors as
F32, bfloat16 ones as BF16. The `safetensors` package is not in Debian 12."""
import json
import struct

import torch


def write_safetensors(path, tensors):
    header, chunks, offset = {}, [], 0
    for name, t in tensors.items():
        t = t.detach().contiguous()
        if t.dtype == torch.bfloat16:
            dtype, raw = "BF16", t.view(torch.int16).numpy().astype("<i2").tobytes()
        else:
            dtype, raw = "F32", t.numpy().astype("<f4").tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))

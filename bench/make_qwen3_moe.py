#!/usr/bin/python3
"""Writes a Hugging Face-format Qwen3-30B-A3B-shaped folder (a mixture of experts) with random
BF16 weights, cut to a few layers.

    /usr/bin/python3 bench/make_qwen3_moe.py [OUTDIR (/tmp/poslab-qwen3-moe)] [--layers N (4)] [--experts E (128)] [--seed S]

OUTDIR gets config.json (Qwen3MoeForCausalLM, model_type qwen3_moe, Qwen/Qwen3-30B-A3B's
config.json with num_hidden_layers 48 -> N: hidden 2048, 32 query heads and 4 key-value heads of
128, every layer sparse (decoder_sparse_step 1, mlp_only_layers []), 128 experts of 768 with the
top 8 renormalized (norm_topk_prob), rope_theta 1,000,000, untied lm_head, vocabulary 151,936),
tokenizer.json and model.safetensors with HF tensor names: per layer input_layernorm, q/k/v/o_proj,
q_norm and k_norm (one weight of 128 shared by the heads), post_attention_layernorm, the router
mlp.gate.weight [experts, 2048] and each expert's mlp.experts.E.{gate,up,down}_proj.weight
(transformers 4's one tensor per expert); then model.norm and lm_head.weight.

--experts E changes num_experts (and num_experts_per_tok to min(8, E)), for a small cut to check
against; the real bench keeps 128. At 4 layers and 128 experts: 3.1 G parameters, ~6.2 GB.

Weights: linear layers, embeddings and lm_head normal(0, 0.02); RMSNorm weights (Qwen multiplies
by w, not 1 + w) 1 + normal(0, 0.02); the router normal(0, 0.05), so that its logits on a
normalized row of 2048 have a spread of ~2.3 (top-8 weights from ~0.3 down to ~0.05, neither
uniform nor one expert taking all, and the 8th and 9th experts' logits apart by much more than
float rounding, so both sides route alike). The residual stream stays at a few units, logits
near ±1. Written streaming through make_llama1b.write_safetensors (every tensor its own random
stream, so the first N layers of a --layers N model equal those of a deeper one with the same E).

tokenizer.json is a byte-level BPE without merges: one token per byte (id = byte), Qwen's three
special tokens at their ids (<|endoftext|> 151643, <|im_start|> 151644, <|im_end|> 151645) and a
ByteLevel post-processor (Qwen adds no BOS). A sentence of n ASCII characters is n tokens.
"""
import argparse
import json
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the bench scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_gemma3_1b import bytes_to_unicode_chars  # noqa: E402
from make_llama1b import write_safetensors  # noqa: E402

HIDDEN = 2048
INTERMEDIATE = 6144  # the dense MLP's (mlp_only_layers), unused when every layer is sparse
MOE_INTERMEDIATE = 768
HEADS = 32
KV_HEADS = 4
HEAD_DIM = 128
EXPERTS = 128
TOP_K = 8
VOCAB = 151936
ROUTER_STD = 0.05
SPECIALS = {"<|endoftext|>": 151643, "<|im_start|>": 151644, "<|im_end|>": 151645}


def config(layers, experts):
    return {
        "architectures": ["Qwen3MoeForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 151643,
        "decoder_sparse_step": 1,
        "eos_token_id": 151645,
        "head_dim": HEAD_DIM,
        "hidden_act": "silu",
        "hidden_size": HIDDEN,
        "initializer_range": 0.02,
        "intermediate_size": INTERMEDIATE,
        "max_position_embeddings": 40960,
        "max_window_layers": 48,
        "mlp_only_layers": [],
        "model_type": "qwen3_moe",
        "moe_intermediate_size": MOE_INTERMEDIATE,
        "norm_topk_prob": True,
        "num_attention_heads": HEADS,
        "num_experts": experts,
        "num_experts_per_tok": min(TOP_K, experts),
        "num_hidden_layers": layers,
        "num_key_value_heads": KV_HEADS,
        "output_router_logits": False,
        "rms_norm_eps": 1e-06,
        "rope_scaling": None,
        "rope_theta": 1000000.0,
        "router_aux_loss_coef": 0.001,
        "sliding_window": None,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.51.0",
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": VOCAB,
    }


def tensor_list(layers, experts):
    """(name, shape, centre, std) in file order: normal(0, std) + centre."""
    out = [("model.embed_tokens.weight", (VOCAB, HIDDEN), 0.0, 0.02)]
    q_out, kv_out = HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM
    for i in range(layers):
        p = f"model.layers.{i}."
        out += [
            (p + "input_layernorm.weight", (HIDDEN,), 1.0, 0.02),
            (p + "self_attn.q_proj.weight", (q_out, HIDDEN), 0.0, 0.02),
            (p + "self_attn.k_proj.weight", (kv_out, HIDDEN), 0.0, 0.02),
            (p + "self_attn.v_proj.weight", (kv_out, HIDDEN), 0.0, 0.02),
            (p + "self_attn.o_proj.weight", (HIDDEN, q_out), 0.0, 0.02),
            (p + "self_attn.q_norm.weight", (HEAD_DIM,), 1.0, 0.02),
            (p + "self_attn.k_norm.weight", (HEAD_DIM,), 1.0, 0.02),
            (p + "post_attention_layernorm.weight", (HIDDEN,), 1.0, 0.02),
            (p + "mlp.gate.weight", (experts, HIDDEN), 0.0, ROUTER_STD),
        ]
        for e in range(experts):
            q = f"{p}mlp.experts.{e}."
            out += [
                (q + "gate_proj.weight", (MOE_INTERMEDIATE, HIDDEN), 0.0, 0.02),
                (q + "up_proj.weight", (MOE_INTERMEDIATE, HIDDEN), 0.0, 0.02),
                (q + "down_proj.weight", (HIDDEN, MOE_INTERMEDIATE), 0.0, 0.02),
            ]
    out += [("model.norm.weight", (HIDDEN,), 1.0, 0.02),
            ("lm_head.weight", (VOCAB, HIDDEN), 0.0, 0.02)]
    return out


def tokenizer(specials=None):
    """A byte-level BPE tokenizer.json without merges: the 256 bytes, then `specials` (name → id)."""
    specials = SPECIALS if specials is None else specials
    vocab = {u: b for b, u in enumerate(bytes_to_unicode_chars())}
    vocab.update(specials)
    added = [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for s, i in specials.items()]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": []},
    }


def encode(text):
    """The ids tokenizer.json gives an ASCII/UTF-8 text: one id per byte, id = byte (no BOS)."""
    return list(text.encode("utf-8"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", default="/tmp/poslab-qwen3-moe")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--experts", type=int, default=EXPERTS)
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args()
    if args.layers < 1 or args.experts < 1:
        sys.exit("--layers and --experts must be >= 1")

    os.makedirs(args.outdir, exist_ok=True)
    for name, obj in (("config.json", config(args.layers, args.experts)), ("tokenizer.json", tokenizer())):
        with open(os.path.join(args.outdir, name), "w") as f:
            json.dump(obj, f, indent=2, ensure_ascii=False)
            f.write("\n")

    start = time.perf_counter()
    path = os.path.join(args.outdir, "model.safetensors")
    tensors = tensor_list(args.layers, args.experts)
    params = write_safetensors(path, tensors, args.seed)
    print(json.dumps({"path": path, "layers": args.layers, "experts": args.experts, "tensors": len(tensors),
                      "params": params, "bytes": os.path.getsize(path),
                      "seconds": round(time.perf_counter() - start, 2)}))


if __name__ == "__main__":
    main()

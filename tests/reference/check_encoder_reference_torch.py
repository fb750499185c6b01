#!/usr/bin/python3
"""Second computation for make_encoder_reference.py: a PyTorch transcription of Hugging Face's
modules (modeling_bert, modeling_modernbert 4.4x eager path, modeling_t5), class by class,
run in float64 on the folders the generator writes, loaded by HF's key rules (BERT's
LayerNorm.gamma/.beta renamed, tied weights absent, the unexpected keys HF ignores ignored).

Not a ctest test (it needs python3-torch, which CI does not install); run it by hand after
changing the generator:

  /usr/bin/python3 tests/reference/check_encoder_reference_torch.py [--hf-casts]

It compares every case of every folder with the generator's float64 values in memory and with
the numbers in the reference JSON, and the T5 buckets with HF's own bucket function (float32
logarithm) exactly. --hf-casts keeps the float32 steps HF's code takes even in a float64 model
(T5LayerNorm's variance, T5's and ModernBERT's softmax, ModernBERT's cos/sin) to show how far
they move the numbers; without it those steps run in float64 like the reference.
"""
import argparse
import json
import math
import os
import sys
import tempfile

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_encoder_reference as er  # noqa: E402
import make_model_reference as mm  # noqa: E402

torch.set_default_dtype(torch.float64)
HF_CASTS = False


def f32_if_hf(x):
    return x.to(torch.float32) if HF_CASTS else x


class NewGELUActivation(nn.Module):
    def forward(self, input):
        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))


ACT2FN = {"gelu": nn.GELU(), "relu": nn.ReLU(), "gelu_new": NewGELUActivation()}


class Cfg:
    def __init__(self, d):
        self.__dict__.update(d)


# --------------------------------------------------------------------------------------------
# modeling_bert
# --------------------------------------------------------------------------------------------


class BertEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.register_buffer("position_ids", torch.arange(config.max_position_embeddings).expand((1, -1)), persistent=False)

    def forward(self, input_ids):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_length]
        token_type_ids = torch.zeros(input_ids.size(), dtype=torch.long)
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        embeddings += self.position_embeddings(position_ids)  # position_embedding_type "absolute"
        return self.LayerNorm(embeddings)


class BertSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)

    def transpose_for_scores(self, x):
        x = x.view(x.size()[:-1] + (self.num_attention_heads, self.attention_head_size))
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        attention_scores = attention_scores + attention_mask
        attention_probs = nn.functional.softmax(attention_scores, dim=-1)
        context_layer = torch.matmul(attention_probs, value_layer).permute(0, 2, 1, 3).contiguous()
        return context_layer.view(context_layer.size()[:-2] + (self.all_head_size,)), attention_probs


class BertSelfOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dense(hidden_states) + input_tensor)


class BertAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self = BertSelfAttention(config)
        self.output = BertSelfOutput(config)

    def forward(self, hidden_states, attention_mask):
        ctx, probs = self.self(hidden_states, attention_mask)
        return self.output(ctx, hidden_states), probs


class BertIntermediate(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)
        self.intermediate_act_fn = ACT2FN[config.hidden_act]

    def forward(self, hidden_states):
        return self.intermediate_act_fn(self.dense(hidden_states))


class BertOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.intermediate_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dense(hidden_states) + input_tensor)


class BertLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutput(config)

    def forward(self, hidden_states, attention_mask):
        attention_output, probs = self.attention(hidden_states, attention_mask)
        return self.output(self.intermediate(attention_output), attention_output), probs


class BertModel(nn.Module):  # add_pooling_layer=False, as BertForMaskedLM builds it
    def __init__(self, config):
        super().__init__()
        self.embeddings = BertEmbeddings(config)
        self.encoder = nn.Module()
        self.encoder.layer = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids):
        attention_mask = torch.ones(input_ids.shape)
        extended = (1.0 - attention_mask[:, None, None, :]) * torch.finfo(torch.float64).min
        h = self.embeddings(input_ids)
        probs = []
        for layer in self.encoder.layer:
            h, p = layer(h, extended)
            probs.append(p)
        return h, probs


class BertPredictionHeadTransform(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.transform_act_fn = ACT2FN[config.hidden_act]
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden_states):
        return self.LayerNorm(self.transform_act_fn(self.dense(hidden_states)))


class BertLMPredictionHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.transform = BertPredictionHeadTransform(config)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))
        self.decoder.bias = self.bias

    def forward(self, hidden_states):
        return self.decoder(self.transform(hidden_states))


class BertForMaskedLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.bert = BertModel(config)
        self.cls = nn.Module()
        self.cls.predictions = BertLMPredictionHead(config)
        self.cls.predictions.decoder.weight = self.bert.embeddings.word_embeddings.weight  # tie_weights

    def forward(self, input_ids):
        h, probs = self.bert(input_ids)
        return self.cls.predictions(h), probs


# --------------------------------------------------------------------------------------------
# modeling_modernbert (4.4x, eager attention)
# --------------------------------------------------------------------------------------------


class LayerNormNoBias(nn.Module):
    """nn.LayerNorm(hidden, eps, bias=False) (torch 1.13 has no bias argument)."""

    def __init__(self, n, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],), self.weight, None, self.eps)


def mb_norm(config):
    assert not config.norm_bias
    return LayerNormNoBias(config.hidden_size, config.norm_eps)


class ModernBertEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.tok_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id)
        self.norm = mb_norm(config)

    def forward(self, input_ids):
        return self.norm(self.tok_embeddings(input_ids))


class ModernBertMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.Wi = nn.Linear(config.hidden_size, int(config.intermediate_size) * 2, bias=config.mlp_bias)
        self.act = ACT2FN[config.hidden_activation]
        self.Wo = nn.Linear(config.intermediate_size, config.hidden_size, bias=config.mlp_bias)

    def forward(self, hidden_states):
        input, gate = self.Wi(hidden_states).chunk(2, dim=-1)
        return self.Wo(self.act(input) * gate)


class ModernBertRotaryEmbedding(nn.Module):
    def __init__(self, dim, base, off=False):
        super().__init__()
        dt = torch.float32 if HF_CASTS else torch.float64
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(dt) / dim))
        self.inv_freq = inv_freq * 0.0 if off else inv_freq  # positions_off: every angle 0

    def forward(self, x, position_ids):
        dt = self.inv_freq.dtype
        inv_freq_expanded = self.inv_freq[None, :, None].expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].to(dt)
        freqs = (inv_freq_expanded @ position_ids_expanded).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


class ModernBertAttention(nn.Module):
    def __init__(self, config, layer_id):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.all_head_size = self.head_dim * self.num_heads
        self.Wqkv = nn.Linear(config.hidden_size, 3 * self.all_head_size, bias=config.attention_bias)
        if layer_id % config.global_attn_every_n_layers != 0:
            self.local_attention = (config.local_attention // 2, config.local_attention // 2)
        else:
            self.local_attention = (-1, -1)
        rope_theta = config.global_rope_theta
        if self.local_attention != (-1, -1) and config.local_rope_theta is not None:
            rope_theta = config.local_rope_theta
        self.rotary_emb = ModernBertRotaryEmbedding(self.head_dim, rope_theta, off=config.positions_off)
        self.Wo = nn.Linear(config.hidden_size, config.hidden_size, bias=config.attention_bias)

    def forward(self, hidden_states, attention_mask, sliding_window_mask, position_ids):
        qkv = self.Wqkv(hidden_states)
        bs = hidden_states.shape[0]
        qkv = qkv.view(bs, -1, 3, self.num_heads, self.head_dim)
        # eager_attention_forward
        cos, sin = self.rotary_emb(qkv, position_ids=position_ids)
        query, key, value = qkv.transpose(3, 1).unbind(dim=2)
        query, key = apply_rotary_pos_emb(query, key, cos, sin)
        scale = self.head_dim ** -0.5
        attn_weights = torch.matmul(query, key.transpose(2, 3)) * scale
        if self.local_attention != (-1, -1):
            attention_mask = sliding_window_mask
        attn_weights = attn_weights + attention_mask
        attn_weights = nn.functional.softmax(f32_if_hf(attn_weights), dim=-1).to(query.dtype)
        attn_output = torch.matmul(attn_weights, value).transpose(1, 2).contiguous().view(bs, -1, self.all_head_size)
        return self.Wo(attn_output), attn_weights


class ModernBertEncoderLayer(nn.Module):
    def __init__(self, config, layer_id):
        super().__init__()
        self.attn_norm = nn.Identity() if layer_id == 0 else mb_norm(config)
        self.attn = ModernBertAttention(config, layer_id)
        self.mlp_norm = mb_norm(config)
        self.mlp = ModernBertMLP(config)

    def forward(self, hidden_states, attention_mask, sliding_window_mask, position_ids):
        attn_out, w = self.attn(self.attn_norm(hidden_states), attention_mask, sliding_window_mask, position_ids)
        hidden_states = hidden_states + attn_out
        return hidden_states + self.mlp(self.mlp_norm(hidden_states)), w


class ModernBertModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embeddings = ModernBertEmbeddings(config)
        self.layers = nn.ModuleList([ModernBertEncoderLayer(config, i) for i in range(config.num_hidden_layers)])
        self.final_norm = mb_norm(config)

    def _update_attention_mask(self, attention_mask):
        global_attention_mask = (1.0 - attention_mask[:, None, None, :].expand(-1, 1, attention_mask.shape[1], -1))
        global_attention_mask = global_attention_mask * torch.finfo(torch.float64).min  # _prepare_4d_attention_mask
        rows = torch.arange(global_attention_mask.shape[2]).unsqueeze(0)
        distance = torch.abs(rows - rows.T)
        window_mask = (distance <= self.config.local_attention // 2).unsqueeze(0).unsqueeze(0)
        sliding_window_mask = global_attention_mask.masked_fill(window_mask.logical_not(), torch.finfo(torch.float64).min)
        return global_attention_mask, sliding_window_mask

    def forward(self, input_ids):
        batch_size, seq_len = input_ids.shape
        attention_mask = torch.ones((batch_size, seq_len))
        position_ids = torch.arange(seq_len).unsqueeze(0)
        attention_mask, sliding_window_mask = self._update_attention_mask(attention_mask)
        hidden_states = self.embeddings(input_ids)
        weights = []
        for layer in self.layers:
            hidden_states, w = layer(hidden_states, attention_mask, sliding_window_mask, position_ids)
            weights.append(w)
        return self.final_norm(hidden_states), weights


class ModernBertPredictionHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size, config.classifier_bias)
        self.act = ACT2FN[config.classifier_activation]
        self.norm = mb_norm(config)

    def forward(self, hidden_states):
        return self.norm(self.act(self.dense(hidden_states)))


class ModernBertForMaskedLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ModernBertModel(config)
        self.head = ModernBertPredictionHead(config)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=config.decoder_bias)
        self.decoder.weight = self.model.embeddings.tok_embeddings.weight  # tied

    def forward(self, input_ids):
        h, weights = self.model(input_ids)
        return self.decoder(self.head(h)), weights


# --------------------------------------------------------------------------------------------
# modeling_t5
# --------------------------------------------------------------------------------------------


class T5LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = f32_if_hf(hidden_states).pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states


class T5DenseActDense(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.wi = nn.Linear(config.d_model, config.d_ff, bias=False)
        self.wo = nn.Linear(config.d_ff, config.d_model, bias=False)
        self.act = ACT2FN[config.dense_act_fn]

    def forward(self, hidden_states):
        return self.wo(self.act(self.wi(hidden_states)))


class T5DenseGatedActDense(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.wi_0 = nn.Linear(config.d_model, config.d_ff, bias=False)
        self.wi_1 = nn.Linear(config.d_model, config.d_ff, bias=False)
        self.wo = nn.Linear(config.d_ff, config.d_model, bias=False)
        self.act = ACT2FN[config.dense_act_fn]

    def forward(self, hidden_states):
        return self.wo(self.act(self.wi_0(hidden_states)) * self.wi_1(hidden_states))


class T5LayerFF(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.DenseReluDense = T5DenseGatedActDense(config) if config.is_gated_act else T5DenseActDense(config)
        self.layer_norm = T5LayerNorm(config.d_model, eps=config.layer_norm_epsilon)

    def forward(self, hidden_states):
        return hidden_states + self.DenseReluDense(self.layer_norm(hidden_states))


class T5Attention(nn.Module):
    def __init__(self, config, has_relative_attention_bias=False):
        super().__init__()
        self.is_decoder = config.is_decoder
        self.has_relative_attention_bias = has_relative_attention_bias
        self.relative_attention_num_buckets = config.relative_attention_num_buckets
        self.relative_attention_max_distance = config.relative_attention_max_distance
        self.d_model = config.d_model
        self.key_value_proj_dim = config.d_kv
        self.n_heads = config.num_heads
        self.inner_dim = self.n_heads * self.key_value_proj_dim
        self.q = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.k = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.v = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.o = nn.Linear(self.inner_dim, self.d_model, bias=False)
        if self.has_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(self.relative_attention_num_buckets, self.n_heads)

    @staticmethod
    def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
        )
        relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
        return relative_buckets

    def buckets(self, query_length, key_length):
        context_position = torch.arange(query_length, dtype=torch.long)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long)[None, :]
        return self._relative_position_bucket(memory_position - context_position, bidirectional=(not self.is_decoder),
                                              num_buckets=self.relative_attention_num_buckets,
                                              max_distance=self.relative_attention_max_distance)

    def compute_bias(self, query_length, key_length):
        values = self.relative_attention_bias(self.buckets(query_length, key_length))
        return values.permute([2, 0, 1]).unsqueeze(0)

    def forward(self, hidden_states, mask=None, key_value_states=None, position_bias=None):
        batch_size, seq_length = hidden_states.shape[:2]
        query_states = self.q(hidden_states).view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)
        current_states = key_value_states if key_value_states is not None else hidden_states
        key_states = self.k(current_states).view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)
        value_states = self.v(current_states).view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)
        scores = torch.matmul(query_states, key_states.transpose(3, 2))  # no 1/sqrt(d_kv)
        if position_bias is None:
            key_length = key_states.shape[-2]
            if not self.has_relative_attention_bias:
                position_bias = torch.zeros((1, self.n_heads, seq_length, key_length), dtype=scores.dtype)
            else:
                position_bias = self.compute_bias(seq_length, key_length)
            if mask is not None:
                position_bias = position_bias + mask[:, :, :, :key_length]
        scores += position_bias
        attn_weights = nn.functional.softmax(f32_if_hf(scores), dim=-1).type_as(scores)
        attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2).contiguous()
        attn_output = self.o(attn_output.view(batch_size, -1, self.inner_dim))
        return attn_output, position_bias, attn_weights


class T5LayerSelfAttention(nn.Module):
    def __init__(self, config, has_relative_attention_bias=False):
        super().__init__()
        self.SelfAttention = T5Attention(config, has_relative_attention_bias=has_relative_attention_bias)
        self.layer_norm = T5LayerNorm(config.d_model, eps=config.layer_norm_epsilon)

    def forward(self, hidden_states, attention_mask=None, position_bias=None):
        out, bias, w = self.SelfAttention(self.layer_norm(hidden_states), mask=attention_mask, position_bias=position_bias)
        return hidden_states + out, bias, w


class T5LayerCrossAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.EncDecAttention = T5Attention(config, has_relative_attention_bias=False)
        self.layer_norm = T5LayerNorm(config.d_model, eps=config.layer_norm_epsilon)

    def forward(self, hidden_states, key_value_states, attention_mask=None, position_bias=None):
        out, bias, w = self.EncDecAttention(self.layer_norm(hidden_states), mask=attention_mask,
                                            key_value_states=key_value_states, position_bias=position_bias)
        return hidden_states + out, bias, w


class T5Block(nn.Module):
    def __init__(self, config, has_relative_attention_bias=False):
        super().__init__()
        self.is_decoder = config.is_decoder
        self.layer = nn.ModuleList([T5LayerSelfAttention(config, has_relative_attention_bias)])
        if self.is_decoder:
            self.layer.append(T5LayerCrossAttention(config))
        self.layer.append(T5LayerFF(config))

    def forward(self, hidden_states, attention_mask, position_bias, encoder_hidden_states=None,
                encoder_attention_mask=None, encoder_decoder_position_bias=None):
        hidden_states, position_bias, w = self.layer[0](hidden_states, attention_mask, position_bias)
        cross_w = None
        if self.is_decoder and encoder_hidden_states is not None:
            hidden_states, encoder_decoder_position_bias, cross_w = self.layer[1](
                hidden_states, encoder_hidden_states, encoder_attention_mask, encoder_decoder_position_bias)
        return self.layer[-1](hidden_states), position_bias, encoder_decoder_position_bias, w, cross_w


class T5Stack(nn.Module):
    def __init__(self, config, embed_tokens):
        super().__init__()
        self.embed_tokens = embed_tokens
        self.is_decoder = config.is_decoder
        self.block = nn.ModuleList([T5Block(config, has_relative_attention_bias=bool(i == 0))
                                    for i in range(config.num_layers)])
        self.final_layer_norm = T5LayerNorm(config.d_model, eps=config.layer_norm_epsilon)

    def forward(self, input_ids, encoder_hidden_states=None):
        inputs_embeds = self.embed_tokens(input_ids)
        batch_size, seq_length = input_ids.shape
        min_dtype = torch.finfo(inputs_embeds.dtype).min
        attention_mask = torch.ones(batch_size, seq_length)
        if self.is_decoder:  # _prepare_4d_causal_attention_mask_with_cache_position, no padding
            causal_mask = torch.full((seq_length, seq_length), fill_value=min_dtype)
            causal_mask = torch.triu(causal_mask, diagonal=1)[None, None, :, :]
        else:
            causal_mask = (1.0 - attention_mask[:, None, None, :]) * min_dtype
        encoder_extended_attention_mask = None
        if self.is_decoder:
            encoder_extended_attention_mask = (1.0 - torch.ones(encoder_hidden_states.shape[:2])[:, None, None, :]) * min_dtype
        position_bias = encoder_decoder_position_bias = None
        hidden_states = inputs_embeds
        weights, cross = [], []
        for layer_module in self.block:
            hidden_states, position_bias, encoder_decoder_position_bias, w, cw = layer_module(
                hidden_states, causal_mask, position_bias, encoder_hidden_states, encoder_extended_attention_mask,
                encoder_decoder_position_bias)
            weights.append(w)
            cross.append(cw)
        return self.final_layer_norm(hidden_states), weights, cross


class T5ForConditionalGeneration(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model_dim = config.d_model
        self.shared = nn.Embedding(config.vocab_size, config.d_model)
        enc = Cfg(dict(config.__dict__, is_decoder=False))
        dec = Cfg(dict(config.__dict__, is_decoder=True, num_layers=config.num_decoder_layers))
        self.encoder = T5Stack(enc, self.shared)
        self.decoder = T5Stack(dec, self.shared)
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.shared.weight

    def _shift_right(self, input_ids):
        shifted = input_ids.new_zeros(input_ids.shape)
        shifted[..., 1:] = input_ids[..., :-1].clone()
        shifted[..., 0] = self.config.decoder_start_token_id
        return shifted

    def forward(self, input_ids, labels):
        enc, enc_w, _ = self.encoder(input_ids)
        decoder_input_ids = self._shift_right(labels)
        seq, dec_w, cross_w = self.decoder(decoder_input_ids, encoder_hidden_states=enc)
        if self.config.tie_word_embeddings:
            seq = seq * (self.model_dim ** -0.5)
        lm_logits = self.lm_head(seq)
        loss = nn.CrossEntropyLoss(ignore_index=-100)(lm_logits.view(-1, lm_logits.size(-1)), labels.view(-1))
        return lm_logits, loss, enc_w, dec_w, cross_w, decoder_input_ids


# --------------------------------------------------------------------------------------------
# Loading by HF's rules, running the cases, comparing
# --------------------------------------------------------------------------------------------


def load(model, folder, rename=lambda k: k, ignored=(), tied=()):
    sd = {rename(k): torch.from_numpy(v) for k, v in mm.read_safetensors(os.path.join(folder, "model.safetensors")).items()}
    sd = {k: v for k, v in sd.items() if not any(k.startswith(p) for p in ignored)}
    missing, unexpected = model.load_state_dict(sd, strict=False)
    assert not unexpected, unexpected
    assert set(missing) <= set(tied), missing  # the tied weights, shared with what was loaded
    return model


def bert_rename(k):  # PreTrainedModel._fix_key
    return k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")


class Report:
    def __init__(self):
        self.worst = {}

    def compare(self, label, got, want_mem, want_json):
        got = np.asarray(got, dtype=np.float64)
        mem = np.asarray(want_mem, dtype=np.float64)
        js = np.asarray(want_json, dtype=np.float64)
        assert got.shape == mem.shape == js.shape, (label, got.shape, mem.shape, js.shape)
        d_mem = float(np.max(np.abs(got - mem)))
        d_json = float(np.max(np.abs(got - js) / np.maximum(np.abs(js), 1e-3)))
        key = label.split("/")[0] + "/" + label.split("/")[-1]
        a, b = self.worst.get(key, (0.0, 0.0))
        self.worst[key] = (max(a, d_mem), max(b, d_json))
        return d_mem


def run(tmp, rep):
    built = {}
    for build in [er.build_bert, er.build_modernbert, lambda o: er.build_t5(o, "t5"), lambda o: er.build_t5(o, "flan_t5")]:
        for name, tok, ids, cases in build(tmp):
            built[name] = cases
    for name, cases in built.items():
        folder = os.path.join(tmp, name)
        cfg_json = json.load(open(os.path.join(folder, "config.json")))
        ref = json.load(open(os.path.join(tmp, name + ".reference.json")))
        for cname, case in cases.items():
            jcase = ref["cases"][cname]
            ids = torch.tensor([case["ids"]])
            label = f"{name}/{cname}"
            if name.startswith("bert"):
                model = load(BertForMaskedLM(Cfg(cfg_json)), folder, bert_rename,
                             ignored=("bert.pooler.", "cls.seq_relationship."), tied=("cls.predictions.decoder.weight", "cls.predictions.decoder.bias"))
                if cname == "positions_off":
                    model.bert.embeddings.position_embeddings.weight.data.zero_()
                with torch.no_grad():
                    logits, probs = model(ids)
                rep.compare(label + "/attention", torch.cat(probs).numpy(), case["attention"], jcase["attention"])
            elif name == "modernbert":
                c = dict(cfg_json, positions_off=(cname == "positions_off"))
                c.update({"window_none": {"local_attention": 10 ** 6}, "window_8": {"local_attention": 8},
                          "local_base_1000": {"local_rope_theta": 1000.0},
                          "rope_theta_10000": {"global_rope_theta": 10000.0}}.get(cname, {}))
                model = load(ModernBertForMaskedLM(Cfg(c)), folder, tied=("decoder.weight",))
                with torch.no_grad():
                    logits, probs = model(ids)
                rep.compare(label + "/attention", torch.cat(probs).numpy(), case["attention"], jcase["attention"])
            else:
                model = load(T5ForConditionalGeneration(Cfg(dict({"tie_word_embeddings": True}, **cfg_json))), folder,
                             ignored=("decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.",),
                             tied=("encoder.embed_tokens.weight", "decoder.embed_tokens.weight", "lm_head.weight"))
                enc_att = model.encoder.block[0].layer[0].SelfAttention
                dec_att = model.decoder.block[0].layer[0].SelfAttention
                # HF's own bucket function (float32 logarithm) gives exactly the JSON's buckets.
                t_dec = len(case["decoder_ids"])
                assert enc_att.buckets(12, 12).tolist() == jcase["buckets"]["encoder"], label
                assert dec_att.buckets(t_dec, t_dec).tolist() == jcase["buckets"]["decoder"], label
                assert np.array_equal(enc_att.relative_attention_bias.weight.detach().numpy(),
                                      np.asarray(ref["relative_attention_bias"]["encoder"], dtype=np.float32))
                if cname == "positions_off":
                    enc_att.relative_attention_bias.weight.data.zero_()
                    dec_att.relative_attention_bias.weight.data.zero_()
                with torch.no_grad():
                    logits, loss, enc_w, dec_w, cross_w, dec_in = model(ids, torch.tensor([case["labels"]]))
                assert dec_in[0].tolist() == case["decoder_ids"] == jcase["decoder_ids"]
                rep.compare(label + "/attention", torch.cat(enc_w).numpy(), case["attention"], jcase["attention"])
                rep.compare(label + "/decoder_attention", torch.cat(dec_w).numpy(), case["decoder_attention"],
                            jcase["decoder_attention"])
                rep.compare(label + "/cross_attention", torch.cat(cross_w).numpy(), case["cross_attention"],
                            jcase["cross_attention"])
                rep.compare(label + "/loss", [float(loss)], [case["loss"]], [jcase["loss"]])
            rep.compare(label + "/logits", logits[0].numpy(), case["logits"], jcase["logits"])
            top = torch.argsort(logits[0], dim=-1, descending=True)[:, :5].tolist()
            assert top == case["top5"] == jcase["top5"], label


def main():
    global HF_CASTS
    ap = argparse.ArgumentParser()
    ap.add_argument("--hf-casts", action="store_true", help="keep HF's float32 steps (variance, softmax, cos/sin)")
    HF_CASTS = ap.parse_args().hf_casts
    rep = Report()
    with tempfile.TemporaryDirectory() as tmp:
        run(tmp, rep)
    print(f"torch {torch.__version__}, float64{' with HF float32 casts' if HF_CASTS else ''}: max |torch − reference| "
          "(in memory, absolute) and max relative difference to the JSON's 9-digit numbers")
    for key, (mem, js) in sorted(rep.worst.items()):
        print(f"  {key:34s} {mem:.2e}   {js:.2e}")
    worst = max(m for m, _ in rep.worst.values())
    limit = 1e-5 if HF_CASTS else 1e-9
    print(f"worst {worst:.2e} (limit {limit:g}): {'OK' if worst < limit else 'FAIL'}")
    sys.exit(0 if worst < limit else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""`import poslab` against the command line: the same state gives the same numbers, files and
errors. Run by ctest (tests/CMakeLists.txt) with PYTHONPATH at the build's module folder and
POSLAB_BINARY, POSLAB_MODEL_REFERENCE set; the model folder is the model_reference fixture's.

    PYTHONPATH=build/python POSLAB_BINARY=build/poslab POSLAB_MODEL_REFERENCE=build/model_reference \
        /usr/bin/python3 tests/python/test_poslab.py
"""
import csv
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import zlib

import numpy as np

import poslab

BINARY = os.environ["POSLAB_BINARY"]
FAKE_HUB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hub", "fake_hub.py")
MODELS = os.environ.get("POSLAB_MODEL_REFERENCE", "")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SENTENCE = "The cat sat on the mat because it was tired."
STATE = {"encoding": "rope", "heads": 2, "causal": True, "seed": 7}
STATE_ARGS = ["--encoding", "rope", "--heads", "2", "--causal", "--seed", "7"]


def cli(*args):
    """The command line's stdout; a failure fails the test with its stderr."""
    done = subprocess.run([BINARY, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"poslab {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def cli_file(suffix, *args):
    """What `poslab ARGS --<suffix> FILE` writes, as bytes."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "out." + suffix)
        cli(*args, "--" + suffix, path)
        with open(path, "rb") as f:
            return f.read()


def png_pixels(data):
    """A PNG's height × width × 4 RGBA values (8-bit RGBA, as PosLab writes them), unfiltered one
    anti-diagonal at a time: a byte depends only on its left, upper and upper-left neighbours."""
    assert data[:8] == PNG_SIGNATURE
    pos, idat = 8, b""
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind, chunk = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = int.from_bytes(chunk[:4], "big"), int.from_bytes(chunk[4:8], "big")
            assert chunk[8:10] == b"\x08\x06", "8-bit RGBA"
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, width * 4 + 1)
    kinds, filtered = raw[:, 0].astype(np.int32), raw[:, 1:].reshape(height, width, 4).astype(np.int32)
    out = np.zeros((height + 1, width + 1, 4), dtype=np.int32)  # a row and a column of zeros before
    for d in range(width + height - 1):
        ys = np.arange(max(0, d - width + 1), min(height, d + 1))
        xs = d - ys
        left, up, up_left = out[ys + 1, xs], out[ys, xs + 1], out[ys, xs]
        p = left + up - up_left
        pa, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - up_left)
        paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, up_left))
        k = kinds[ys][:, None]
        guess = np.select([k == 1, k == 2, k == 3, k == 4], [left, up, (left + up) // 2, paeth], 0)
        out[ys + 1, xs + 1] = (filtered[ys, xs] + guess) % 256
    return width, height, out[1:, 1:]


def rows(csv_bytes):
    return list(csv.DictReader(io.StringIO(csv_bytes.decode("utf-8"))))


def heads_from_csv(table, field):
    """head,query,key,… rows as a heads × T_q × T_k float32 array."""
    heads = 1 + max(int(r["head"]) for r in table)
    tq = 1 + max(int(r["query"]) for r in table)
    tk = 1 + max(int(r["key"]) for r in table)
    out = np.zeros((heads, tq, tk), dtype=np.float32)
    for r in table:
        out[int(r["head"]), int(r["query"]), int(r["key"])] = np.float32(float(r[field]))
    return out


class Explorer(unittest.TestCase):
    def test_attention_equals_the_command_lines_csv(self):
        a = poslab.attention(SENTENCE, **STATE)
        table = rows(cli_file("csv", "export", "attention", "--sentence", SENTENCE, *STATE_ARGS))
        self.assertEqual(a.weights.shape, heads_from_csv(table, "weight").shape)
        self.assertEqual(a.weights.shape[0], 2)
        np.testing.assert_array_equal(a.weights, heads_from_csv(table, "weight"))
        np.testing.assert_array_equal(a.scores, heads_from_csv(table, "score"))
        self.assertEqual(a.tokens, [r["query_token"] for r in table if r["head"] == "0" and r["key"] == "0"])
        self.assertTrue(np.isneginf(a.scores[0, 0, 1]), "the causal mask is -inf above the diagonal")
        self.assertEqual(a.weights[0, 0, 1], 0.0)

    def test_to_html_is_the_command_lines_page_and_holds_the_csvs_numbers(self):
        a = poslab.attention(SENTENCE, **STATE)
        page = a.figure().to_html()
        self.assertEqual(page, cli_file("html", "export", "attention", "--sentence", SENTENCE, *STATE_ARGS).decode("utf-8"))
        data = json.loads(page.split('<script id="data" type="application/json">')[1].split("</script>")[0])
        table = rows(cli_file("csv", "export", "attention", "--sentence", SENTENCE, *STATE_ARGS))
        self.assertEqual(len(data["views"]), 2, "one view per head")
        for r in table:
            panel = data["views"][int(r["head"])][0]
            k = int(r["query"]) * panel["cols"] + int(r["key"])
            self.assertEqual((panel["score"][k], panel["weight"][k]), (r["score"], r["weight"]))
            self.assertEqual(panel["masked"][k], 1 if r["score"] == "-inf" else 0)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a.html")
            a.figure().save(path)
            self.assertEqual(open(path, encoding="utf-8").read(), page)
        # A view without heatmap cells: the figure alone, as a page.
        still = poslab.figure("patterns").to_html()
        self.assertIn("<svg", still)
        self.assertNotIn('id="data"', still)

    def test_additive_encodings_equal_the_patterns_views_csv(self):
        for kind, args in (("sinusoidal", ["--encoding", "sinusoidal"]), ("integer", ["--encoding", "integer"]),
                           ("binary", ["--encoding", "binary", "--binary-values", "pm1"])):
            table = rows(cli_file("csv", "export", "patterns", *args))
            name = next(r["encoding"] for r in table if r["encoding"].startswith(kind))
            mine = [r for r in table if r["encoding"] == name]
            width = 1 + max(int(r["dimension"]) for r in mine)
            expected = np.zeros((64, width), dtype=np.float32)
            for r in mine:
                expected[int(r["position"]), int(r["dimension"])] = np.float32(float(r["value"]))
            options = {"binary_values": "pm1"} if kind == "binary" else {}
            np.testing.assert_array_equal(poslab.encoding(kind, 64, width, **options), expected, err_msg=kind)

    def test_rope_turns_each_pair_by_the_frequencies_views_scaled_angles(self):
        table = rows(cli_file("csv", "export", "frequencies", "--encoding", "rope", "--rope-scaling", "linear",
                              "--factor", "4", "--head-dim", "16"))
        theta = np.array([float(r["theta_scaled"]) for r in table])
        rope = poslab.encoding("rope", 9, 16, rope_scaling="linear", factor=4)
        angles = np.arange(9)[:, None] * theta[None, :]
        np.testing.assert_allclose(rope[:, 0::2], np.sin(angles), atol=1e-6)
        np.testing.assert_allclose(rope[:, 1::2], np.cos(angles), atol=1e-6)
        # Unscaled, RoPE's rotations are the sinusoidal table of the same base.
        np.testing.assert_allclose(poslab.encoding("rope", 32, 16), poslab.encoding("sinusoidal", 32, 16), atol=1e-6)

    def test_a_figure_writes_what_the_command_line_writes(self):
        fig = poslab.attention(SENTENCE, **STATE).figure()
        self.assertEqual(fig._repr_png_()[:8], PNG_SIGNATURE)
        self.assertIn("<svg", fig._repr_svg_()[:400])
        with tempfile.TemporaryDirectory() as folder:
            for suffix in ("png", "svg", "csv"):
                path = os.path.join(folder, "a." + suffix)
                fig.save(path)
                with open(path, "rb") as f:
                    mine = f.read()
                theirs = cli_file(suffix, "export", "attention", "--sentence", SENTENCE, *STATE_ARGS)
                if suffix != "png":
                    self.assertEqual(mine, theirs, f"the .{suffix} differs from poslab export attention's")
                    continue
                # The same figure drawn by Mesa in another process: a glyph's edge may round a
                # channel the other way (seen: 4 values of 2 million, by 1), nothing more.
                (w, h, a), (w2, h2, b) = png_pixels(mine), png_pixels(theirs)
                self.assertEqual((w, h), (w2, h2))
                self.assertLessEqual(int(np.abs(a - b).max()), 1)
                self.assertLess(int(np.count_nonzero(a != b)), a.size // 10000)
            with self.assertRaises(ValueError):
                fig.save(os.path.join(folder, "a.txt"))
            with self.assertRaises(FileNotFoundError):
                fig.save(os.path.join(folder, "missing", "a.png"))

    def test_any_view_by_name(self):
        fig = poslab.figure("patterns", encoding="binary")
        self.assertEqual(fig.csv.encode(), cli_file("csv", "export", "patterns", "--encoding", "binary"))
        self.assertEqual(fig.png()[:8], PNG_SIGNATURE)
        with self.assertRaisesRegex(ValueError, "unknown view"):
            poslab.figure("no-such-view")

    def test_plot_attention_draws_any_array_with_its_mask(self):
        t = 4
        causal = np.tril(np.ones((t, t), dtype=np.float32))
        causal /= causal.sum(axis=1, keepdims=True)
        fig = poslab.plot_attention(causal, ["a", "b", "c", "d"])
        self.assertEqual(fig._repr_png_()[:8], PNG_SIGNATURE)
        table = rows(fig.csv.encode())
        self.assertEqual(len(table), t * t)
        self.assertEqual(heads_from_csv(table, "weight")[0].tolist(), causal.tolist())
        self.assertIn("causal", fig._repr_svg_())
        full = poslab.plot_attention(np.full((2, t, t), 0.25), list("abcd"), head=1)
        self.assertNotIn("causal", full._repr_svg_())
        with self.assertRaises(ValueError):
            poslab.plot_attention(causal, ["a", "b"])
        with self.assertRaisesRegex(ValueError, "no token"):
            poslab.plot_attention(np.zeros((0, 0)), [])
        with self.assertRaisesRegex(ValueError, "--head 2 is out of range"):
            poslab.plot_attention(np.full((2, t, t), 0.25), list("abcd"), head=2)


class Threads(unittest.TestCase):
    def test_python_runs_while_poslab_computes(self):
        """With the GIL held, no Python code of another thread could run inside the call."""
        window = {}

        def compute():
            window["start"] = time.monotonic()
            poslab.attention("word " * 300, heads=4)
            window["end"] = time.monotonic()

        worker = threading.Thread(target=compute)
        stamps = []
        worker.start()
        while worker.is_alive():
            stamps.append(time.monotonic())
        worker.join()
        start, end = window["start"] + 0.05, window["end"] - 0.05
        self.assertGreater(end, start, "the call was too short to tell")
        self.assertGreater(sum(start < t < end for t in stamps), 0)


class Papers(unittest.TestCase):
    """poslab.papers.check gives what `poslab papers check --json` writes, check by check."""

    def test_the_checks_equal_the_command_lines_json(self):
        ids = ["alibi-slopes", "critical-dimension", "yarn"]
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "papers.json")
            done = subprocess.run([BINARY, "papers", "check", *ids, "--json", path], capture_output=True, text=True, check=False)
            self.assertIn(done.returncode, (0, 1), done.stderr)  # 1: a check that differs (yarn's ramp)
            with open(path) as f:
                expected = json.load(f)
        self.assertEqual(poslab.papers.check(ids), expected)
        self.assertEqual(sorted({row["id"] for row in expected}), sorted(ids))
        self.assertIn("alibi-slopes", poslab.papers.ids())

    def test_an_unknown_check_names_the_valid_ones(self):
        with self.assertRaises(ValueError) as caught:
            poslab.papers.check(["no-such-check"])
        self.assertIn("roformer-decay", str(caught.exception))


class Errors(unittest.TestCase):
    def test_an_unknown_keyword_names_the_ones_that_exist(self):
        with self.assertRaises(ValueError) as caught:
            poslab.attention(SENTENCE, rope_scalling="yarn")
        message = str(caught.exception)
        self.assertIn('"rope_scalling"', message)
        for known in ("rope_scaling", "encoding", "heads", "causal", "memory_limit"):
            self.assertIn(known, message)

    def test_a_bad_value_is_a_value_error(self):
        with self.assertRaisesRegex(ValueError, "--encoding"):
            poslab.encoding("spiral", 8, 8)
        with self.assertRaises(ValueError):
            poslab.attention(SENTENCE, heads=7)

    def test_a_missing_file_is_file_not_found(self):
        with self.assertRaises(FileNotFoundError):
            poslab.attention(SENTENCE, embeddings="/nonexistent/vectors.txt")
        with self.assertRaises(FileNotFoundError):
            poslab.Model("/nonexistent/model-folder")

    def test_the_memory_budget_refuses_and_holds_for_the_call_only(self):
        with self.assertRaisesRegex(MemoryError, "memory limit"):
            poslab.encoding("sinusoidal", 1 << 20, 4096, memory_limit="1M")
        self.assertEqual(poslab.encoding("sinusoidal", 1 << 12, 256).shape, (1 << 12, 256))


@unittest.skipUnless(os.path.isdir(os.path.join(MODELS, "llama")), "needs the model_reference fixture")
class RealModel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = os.path.join(MODELS, "llama")
        cls.model = poslab.Model(cls.folder)

    def test_predict_equals_the_command_lines_json(self):
        theirs = json.loads(cli("predict", "--model", self.folder, "--sentence", SENTENCE, "--top", "3"))
        self.assertEqual(self.model.predict(SENTENCE, top=3), theirs)
        changed = json.loads(cli("predict", "--model", self.folder, "--sentence", SENTENCE, "--base", "10000"))
        self.assertEqual(self.model.predict(SENTENCE, base=10000), changed)
        self.assertNotEqual(changed["loss"], theirs["loss"])

    def test_attention_of_a_layer_equals_the_command_lines_csv(self):
        a = self.model.attention(SENTENCE, 1)
        table = rows(cli_file("csv", "export", "attention", "--model", self.folder, "--layer", "1", "--sentence", SENTENCE))
        np.testing.assert_array_equal(a.weights, heads_from_csv(table, "weight"))
        self.assertEqual(a.tokens, self.model.tokens(SENTENCE))
        self.assertEqual(a.figure()._repr_png_()[:8], PNG_SIGNATURE)
        with self.assertRaisesRegex(ValueError, "--layer 99 is out of range"):
            self.model.attention(SENTENCE, 99)

    def test_bf16_precision_equals_the_command_line_and_is_bf16(self):
        theirs = json.loads(cli("predict", "--model", self.folder, "--sentence", SENTENCE, "--precision", "bf16"))
        ours = self.model.predict(SENTENCE, precision="bf16")
        self.assertEqual(ours, theirs)
        self.assertEqual(ours["precision"], "bf16")
        self.assertNotIn("precision", self.model.predict(SENTENCE))
        a = self.model.attention(SENTENCE, 1, precision="bf16")
        table = rows(cli_file("csv", "export", "attention", "--model", self.folder, "--layer", "1", "--sentence", SENTENCE,
                              "--precision", "bf16"))
        np.testing.assert_array_equal(a.weights, heads_from_csv(table, "weight"))
        bits = np.asarray(a.weights, dtype=np.float32).view(np.uint32)
        self.assertTrue(((bits & 0xFFFF) == 0).all(), "BF16 weights have no low half")
        with self.assertRaisesRegex(ValueError, "--precision expects one of f32|bf16"):
            self.model.predict(SENTENCE, precision="fp8")

    def test_design_heads_and_frequency_usage(self):
        info = cli("info", "--model", self.folder)
        design = next(line.split(None, 1)[1] for line in info.splitlines() if line.startswith("design"))
        self.assertEqual(self.model.design, design)
        usage = self.model.frequency_usage(SENTENCE, 0)
        table = rows(cli_file("csv", "export", "frequency-usage", "--model", self.folder, "--layer", "0",
                              "--sentence", SENTENCE))
        self.assertEqual(usage.shape, (1 + max(int(r["head"]) for r in table), 1 + max(int(r["pair"]) for r in table)))
        for r in table:
            self.assertEqual(usage[int(r["head"]), int(r["pair"])], np.float32(float(r["usage"])))
        heads = self.model.heads(SENTENCE, 0)
        self.assertEqual(heads.csv.encode(), cli_file("csv", "export", "heads", "--model", self.folder, "--layer", "0",
                                                      "--sentence", SENTENCE))


@unittest.skipUnless(os.path.isdir(os.path.join(MODELS, "llama")), "needs the model_reference fixture")
class HubModel(unittest.TestCase):
    """Model("ORG/NAME[@REVISION]") through Hugging Face's cache, from the small Hub of
    tests/hub/fake_hub.py on 127.0.0.1, as --model fetches it."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        root, ports = os.path.join(self.dir.name, "root"), os.path.join(self.dir.name, "ports")
        self.folder = os.path.join(MODELS, "llama")
        subprocess.run([sys.executable, FAKE_HUB, "publish", root, "lab/tiny-llama", self.folder, "--tag", "v1"],
                       check=True, capture_output=True)
        self.server = subprocess.Popen([sys.executable, FAKE_HUB, "serve", root, "--ports", ports])
        deadline = time.time() + 60
        while not os.path.exists(ports) and time.time() < deadline:
            time.sleep(0.02)
        with open(ports) as f:
            hub_port = f.read().split()[0]
        self.saved = {k: os.environ.get(k) for k in ("HF_ENDPOINT", "HF_HUB_CACHE", "HF_HOME", "HF_TOKEN")}
        os.environ.update(HF_ENDPOINT="http://127.0.0.1:" + hub_port, HF_HUB_CACHE=os.path.join(self.dir.name, "cache"))
        for k in ("HF_HOME", "HF_TOKEN"):
            os.environ.pop(k, None)

    def tearDown(self):
        self.server.terminate()
        self.server.wait()
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        self.dir.cleanup()

    def test_a_name_on_the_hub_is_fetched_into_the_cache_and_runs_as_the_folder_does(self):
        model = poslab.Model("lab/tiny-llama@v1")
        self.assertTrue(model.folder.startswith(os.environ["HF_HUB_CACHE"]), model.folder)
        self.assertEqual(model.predict(SENTENCE, top=2), poslab.Model(self.folder).predict(SENTENCE, top=2))
        with self.assertRaises(FileNotFoundError):
            poslab.Model("lab/no-such-model")


if __name__ == "__main__":
    unittest.main()

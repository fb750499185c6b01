#!/usr/bin/python3
"""PosLab's interactive HTML pages (export attention|heads --html) in a real browser.

Debian's headless Chromium, driven by Selenium (python3-selenium, chromium-driver), opens each
page from disk: it renders without a console error and requests nothing from a network, the head
selector switches the figure, and the pointer moved over a cell (a real pointer move through the
WebDriver actions, not a synthetic event) makes the page show that cell's query, key, score and
weight exactly as the CSV of the same export writes them; a masked cell says so.

Environment: POSLAB_BINARY (the poslab executable), POSLAB_MODEL_REFERENCE (the tiny model folders).
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.support.ui import Select, WebDriverWait

POSLAB = os.environ.get("POSLAB_BINARY", "build/poslab")
MODELS = os.environ.get("POSLAB_MODEL_REFERENCE", "build/model_reference")
SENTENCE = "the cat sat on the mat and the dog sat"

# Where cell (row, col) of panel k of view v lies in the window, from the page's own data.
CELL_CENTRE = """
const [v, k, row, col] = arguments;
const data = JSON.parse(document.getElementById('data').textContent);
const svg = document.querySelectorAll('.view')[v].querySelector('svg');
const r = svg.getBoundingClientRect(), s = r.width / data.width, p = data.views[v][k];
return [r.left + (p.x + (col + 0.5) * p.w / p.cols) * s, r.top + (p.y + (row + 0.5) * p.h / p.rows) * s, p.head];
"""


def attention_csv(path):
    """(head, query, key) -> (score, weight) as the CSV writes them."""
    with open(path, newline="") as f:
        return {(int(r["head"]), int(r["query"]), int(r["key"])): (r["score"], r["weight"]) for r in csv.DictReader(f)}


class HtmlPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="poslab-html-")
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1800,1400"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        cls.browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def export(self, view, name, *extra):
        page, table = os.path.join(self.dir, name + ".html"), os.path.join(self.dir, name + ".csv")
        args = [POSLAB, "export", view, "--backend", "cpu", "--sentence", SENTENCE, "--html", page, *extra]
        if view == "attention":
            args += ["--csv", table]
        done = subprocess.run(args, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        return page, table

    def open(self, page):
        with open(page, encoding="utf-8") as f:
            text = f.read()
        self.assertNotIn("<link", text)
        self.assertNotRegex(text, r'(src|href)="https?:', "the page fetches nothing")
        self.browser.get("file://" + page)
        WebDriverWait(self.browser, 30).until(lambda b: b.execute_script("return document.getElementById('head').options.length") > 0)

    def point(self, view, panel, row, col):
        x, y, head = self.browser.execute_script(CELL_CENTRE, view, panel, row, col)
        action = ActionBuilder(self.browser)
        action.pointer_action.move_to_location(int(x), int(y))
        action.perform()
        info = self.browser.find_element("id", "info")
        return info.text, head

    def console_errors(self):
        return [e for e in self.browser.get_log("browser") if e["level"] == "SEVERE"]

    def test_attention_page_answers_the_pointer_with_the_csvs_values(self):
        page, table = self.export("attention", "attention", "--model", os.path.join(MODELS, "llama"), "--layer", "1")
        cells = attention_csv(table)
        self.open(page)
        selector = Select(self.browser.find_element("id", "head"))
        self.assertEqual(len(selector.options), 8)
        for head, row, col in ((0, 5, 2), (3, 7, 7), (6, 4, 0)):
            selector.select_by_value(str(head))
            text, shown = self.point(head, 0, row, col)
            score, weight = cells[(head, row, col)]
            self.assertEqual(shown, head)
            self.assertIn(f"head {head} ", text)
            self.assertIn(f"query {row} ", text)
            self.assertIn(f"key {col} ", text)
            self.assertIn(f"score {score} · weight {weight}", text)
        # Above the diagonal: masked, as the CSV's −∞ says.
        selector.select_by_value("2")
        text, _ = self.point(2, 0, 1, 6)
        self.assertEqual(cells[(2, 1, 6)][0], "-inf")
        self.assertTrue(text.endswith("masked"), text)
        self.assertEqual(self.console_errors(), [])

    def test_the_embeddings_attention_page_too(self):
        page, table = self.export("attention", "embeddings", "--heads", "4", "--causal")
        cells = attention_csv(table)
        self.open(page)
        Select(self.browser.find_element("id", "head")).select_by_value("1")
        text, _ = self.point(1, 0, 3, 1)
        score, weight = cells[(1, 3, 1)]
        self.assertIn(f"score {score} · weight {weight}", text)
        self.assertEqual(self.console_errors(), [])

    def test_heads_page_answers_for_each_thumbnail_and_outlines_the_chosen_head(self):
        page, _ = self.export("heads", "heads", "--model", os.path.join(MODELS, "llama"), "--layer", "1", "--base", "10000")
        _, table = self.export("attention", "changed", "--model", os.path.join(MODELS, "llama"), "--layer", "1", "--base", "10000")
        changed = attention_csv(table)
        self.open(page)
        panels = self.browser.execute_script("return JSON.parse(document.getElementById('data').textContent).views[0].length")
        self.assertEqual(panels, 16, "8 heads, unchanged and changed")
        # The changed grid's head 5 (the thumbnails of the second grid come after the first's).
        text, head = self.point(0, 13, 4, 2)
        self.assertEqual(head, 5)
        score, weight = changed[(5, 4, 2)]
        self.assertIn("(changed)", text)
        self.assertIn(f"score {score} · weight {weight}", text)
        Select(self.browser.find_element("id", "head")).select_by_value("5")
        marks = self.browser.execute_script("return document.querySelectorAll('.mark').length")
        self.assertEqual(marks, 2, "head 5 outlined in both grids")
        self.assertEqual(self.console_errors(), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)

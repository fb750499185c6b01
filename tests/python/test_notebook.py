#!/usr/bin/python3
"""notebooks/*.ipynb run headless (Debian's python3-nbclient and python3-ipykernel) against the
build's module: stored without outputs, every cell runs, and every cell tagged "figure" shows an
image. Run by ctest with PYTHONPATH at the build's module folder (the kernel inherits it).

    PYTHONPATH=build/python /usr/bin/python3 tests/python/test_notebook.py notebooks/encodings.ipynb
"""
import sys
import unittest

import nbformat
from nbclient import NotebookClient

PATHS = sys.argv[1:]


class Notebooks(unittest.TestCase):
    def test_every_cell_runs_and_every_figure_cell_holds_an_image(self):
        self.assertTrue(PATHS, "give the notebooks to run")
        for path in PATHS:
            with self.subTest(notebook=path):
                nb = nbformat.read(path, as_version=4)
                code = [c for c in nb.cells if c.cell_type == "code"]
                for cell in code:
                    self.assertEqual((cell.outputs, cell.execution_count), ([], None),
                                     f"stored with outputs: {cell.source[:60]!r}")
                figures = [c for c in code if "figure" in c.metadata.get("tags", [])]
                self.assertTrue(figures, "no cell is tagged figure")
                # A failing cell raises CellExecutionError with the cell's traceback.
                NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=False).execute()
                for cell in code:
                    self.assertIsNotNone(cell.execution_count, f"did not run: {cell.source[:60]!r}")
                    errors = [o for o in cell.outputs if o.output_type == "error"]
                    self.assertEqual(errors, [], cell.source[:60])
                for cell in figures:
                    images = [o for o in cell.outputs if "image/png" in o.get("data", {})]
                    self.assertTrue(images, f"no image from {cell.source[:60]!r}")
                    self.assertTrue(images[-1]["data"]["image/png"].startswith("iVBORw0KGgo"), "not a PNG")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])

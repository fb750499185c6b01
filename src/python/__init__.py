"""PosLab from Python: positional encodings, attention, real models and their figures.

Every keyword is the command line's option with ``_`` for ``-`` (``rope_scaling="yarn"`` is
``--rope-scaling yarn``; ``causal=True`` is the switch ``--causal``), read by the same parser.
Errors: ValueError (a bad value or an unknown keyword), FileNotFoundError (a missing file or
folder), MemoryError (over PosLab's memory budget, ``memory_limit="8G"`` to change it).

    import poslab
    pe = poslab.encoding("sinusoidal", 64, 128)           # 64 × 128 NumPy array
    a = poslab.attention("May the force be with you.", encoding="rope", causal=True)
    a.weights.shape                                       # heads × T × T
    a.figure().save("attention.png")
"""
import os as _os

# The data an installed module reads (the default embeddings, fonts) lies in PREFIX/share/poslab,
# beside PREFIX/lib/python3/dist-packages/poslab; a build tree's module finds the sources' assets/.
_share = _os.path.normpath(_os.path.join(_os.path.dirname(__file__), "..", "..", "..", "..", "share", "poslab"))
if "POSLAB_ASSETS" not in _os.environ and _os.path.isdir(_share):
    _os.environ["POSLAB_ASSETS"] = _share

from ._poslab import Figure, Model, __version__, encoding, figure, plot_attention  # noqa: E402
from ._poslab import _attention, _papers_check, _papers_list  # noqa: E402


class Attention:
    """One attention computation: ``weights`` and ``scores`` (heads × T × T NumPy arrays; a masked
    score is -inf, its weight 0), ``tokens`` (the rows) and ``key_tokens`` (the columns)."""

    def __init__(self, weights, scores, tokens, key_tokens, figure_):
        self.weights = weights
        self.scores = scores
        self.tokens = tokens
        self.key_tokens = key_tokens
        self._figure = figure_

    def figure(self):
        """The heatmap `poslab export attention` draws for the same state (a Figure)."""
        return self._figure

    def __repr__(self):
        heads, rows, cols = self.weights.shape
        return f"<poslab.Attention: {heads} heads, {rows} × {cols} tokens>"


class _Papers:
    """The papers' checks of docs/PAPERS.md, as ``poslab papers check`` runs them."""

    @staticmethod
    def ids():
        """Every check's id, in the order ``poslab papers`` lists them."""
        return _papers_list()

    @staticmethod
    def check(ids=None, model=None):
        """Runs the checks ``ids`` names (None: every one; those that need a model only with
        ``model=DIR``) and returns the JSON of ``poslab papers check --json`` as a list of dicts:
        id, paper, where, quantity, published, measured, tolerance, pass."""
        if isinstance(ids, str):
            ids = [ids]
        return _papers_check(list(ids or []), None if model is None else _os.fspath(model))


papers = _Papers()


def attention(sentence, **state):
    """The attention of ``sentence`` for the state the keywords give (``encoding="rope"``,
    ``heads=4``, ``causal=True``, …; with ``model=DIR`` and ``layer=L``, a model's own layer)."""
    return _attention(sentence, **state)


__all__ = ["Attention", "Figure", "Model", "attention", "encoding", "figure", "papers", "plot_attention", "__version__"]

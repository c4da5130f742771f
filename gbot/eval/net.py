"""The per-class networks: load, save and evaluate (``int8[n, 26]`` boards -> ``float32[n, 5]``).

One network per position class of :mod:`gbot.core.classify`: ``contact``, ``crashed`` and
``race`` (bear-off positions use the race network; the exact bear-off tables override it in the
evaluator). Inputs are :mod:`gbot.core.encode`'s, the forward pass is
:func:`gbot.core.forward.forward_batch`. Outputs are cubeless ``(win, win_g, win_bg, lose_g,
lose_bg)`` for the side to move; finished games get their exact result.

Weights file (``.npz``): for each network ``NAME`` the arrays ``NAME.w1`` ``[N_INPUTS,
hidden]``, ``NAME.b1`` ``[hidden]``, ``NAME.w2`` ``[hidden, 5]``, ``NAME.b2`` ``[5]``, and
``meta``, a JSON string with ``format``, ``encoding``, ``activation``, ``nets`` and
``class_net`` (class name -> network name), plus free-form provenance.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gbot.core import classify as _cls
from gbot.core import encode as _enc
from gbot.core import forward as _fw
from gbot.core.board import START
from gbot.errors import WeightsError

FORMAT = 1
ENCODING = f"gbot-{_enc.N_INPUTS}-v1"
LEGACY_ENCODINGS = tuple(f"gbot-{_enc.FEATURES_AT + 2 * n}-v1" for n in _enc.LEGACY_FEATURE_COUNTS)
"""Older encodings whose weights still load (upgraded by :func:`gbot.core.encode.upgrade_w1`)."""
NET_NAMES = ("contact", "crashed", "race")
DEFAULT_CLASS_NET = {"bearoff": "race", "race": "race", "crashed": "crashed",
                     "contact": "contact"}
DEFAULT_WEIGHTS = "nets.npz"
DEFAULT_PRUNE_WEIGHTS = "prune.npz"
"""The shipped pruning networks of the shipped networks (see :attr:`Networks.prune`)."""
WEIGHTS_DIR = Path(__file__).resolve().parent.parent / "weights"
ACTIVATIONS = {"sigmoid": _fw.ACT_SIGMOID, "relu": _fw.ACT_RELU}

Params = Mapping[str, npt.NDArray[np.float32]]
F32 = npt.NDArray[np.float32]
KernelArgs = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], F32, F32, F32, F32, int]

_default: Networks | None = None
_default_lock = threading.Lock()


class Networks:
    """A set of per-class networks ready for batched evaluation (thread-safe)."""

    def __init__(self, nets: Mapping[str, Params], activation: str = "sigmoid",
                 class_net: Mapping[str, str] | None = None,
                 meta: Mapping[str, Any] | None = None) -> None:
        if activation not in ACTIVATIONS:
            raise WeightsError(f"unknown activation {activation!r}")
        class_net = dict(class_net or DEFAULT_CLASS_NET)
        names = list(nets)
        if not names:
            raise WeightsError("a weights set needs at least one network")
        hidden = None
        for name, p in nets.items():
            for key in ("w1", "b1", "w2", "b2"):
                if key not in p:
                    raise WeightsError(f"network {name!r} lacks {key!r}")
            w1 = p["w1"]
            if w1.ndim != 2 or w1.shape[0] != _enc.N_INPUTS:
                raise WeightsError(f"network {name!r}: w1 shape {w1.shape!r}, "
                                   f"expected ({_enc.N_INPUTS}, hidden)")
            if hidden is None:
                hidden = w1.shape[1]
            if hidden % _fw.LANES:
                raise WeightsError(f"network {name!r}: hidden size {hidden} is not a multiple "
                                   f"of {_fw.LANES}")
            if (w1.shape[1] != hidden or p["b1"].shape != (hidden,)
                    or p["w2"].shape != (hidden, 5) or p["b2"].shape != (5,)):
                raise WeightsError(f"network {name!r}: shapes do not match hidden={hidden}")
        for cls_name in _cls.NAMES[1:]:
            if class_net.get(cls_name) not in nets:
                raise WeightsError(f"class {cls_name!r} maps to missing network "
                                   f"{class_net.get(cls_name)!r}")
        self.nets = {n: {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in p.items()}
                     for n, p in nets.items()}
        self.activation = activation
        self.class_net = class_net
        self.meta = dict(meta or {})
        self.prune: Networks | None = None
        """Smaller networks trained to rank plays as these do, which the search uses to prune
        its inner reply choices (:class:`gbot.eval.evaluator.Evaluator`); None: no pruning.
        The shipped networks come with theirs; other weights files have none."""
        self._w1m = np.ascontiguousarray(
            np.stack([_fw.build_matrix(self.nets[n]["w1"]) for n in names]))
        for k, n in enumerate(names):   # narrower networks zero-padded to the common width
            _fw.mark_padding(self._w1m[k], self.nets[n]["b1"], self.nets[n]["w2"])
        self._b1 = np.ascontiguousarray(np.stack([self.nets[n]["b1"] for n in names]))
        self._w2t = np.ascontiguousarray(np.stack([self.nets[n]["w2"].T for n in names]))
        self._b2 = np.ascontiguousarray(np.stack([self.nets[n]["b2"] for n in names]))
        cn = np.zeros(_cls.N_CLASSES, dtype=np.int64)
        for c, cls_name in enumerate(_cls.NAMES):
            cn[c] = names.index(class_net[cls_name]) if c != _cls.OVER else 0
        self._class_net = cn
        self._act = ACTIVATIONS[activation]
        self._esc = _enc.escape_table()

    @property
    def hidden(self) -> int:
        """Hidden units per network."""
        return int(self._b1.shape[1])

    def evaluate(self, boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
        """``float32[n, 5]`` probabilities for the side to move of each ``int8[n, 26]`` board
        (one ``int8[26]`` board gives ``[1, 5]``)."""
        arr = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
        out = np.empty((arr.shape[0], 5), dtype=np.float32)
        _fw.forward_batch(arr, *self.kernel_args(), out)
        return out

    def kernel_args(self) -> KernelArgs:
        """The arguments of :func:`gbot.core.forward.forward_batch` after ``boards`` and before
        ``out``: ``(esc, class_net, w1m, b1, w2t, b2, activation)`` (for kernels that call the
        forward pass themselves)."""
        return (self._esc, self._class_net, self._w1m, self._b1, self._w2t, self._b2,
                self._act)

    def evaluate_dense(self, boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
        """The raw network outputs through explicit inputs (slow; a reference for tests): no
        consistency fixes, no exact results for finished games."""
        arr = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
        x = _enc.encode(arr).astype(np.float64)
        classes = _cls.classify_many(arr)
        out = np.zeros((arr.shape[0], 5), dtype=np.float32)
        for c, cls_name in enumerate(_cls.NAMES):
            sel = classes == c
            if c == _cls.OVER or not sel.any():
                continue
            p = self.nets[self.class_net[cls_name]]
            h = x[sel] @ p["w1"].astype(np.float64) + p["b1"]
            h = 1.0 / (1.0 + np.exp(-h)) if self.activation == "sigmoid" else np.maximum(h, 0)
            z = h @ p["w2"].astype(np.float64) + p["b2"]
            out[sel] = 1.0 / (1.0 + np.exp(-z))
        return out

    def warm(self) -> None:
        """Compile (or load from cache) the kernels once."""
        self.evaluate(START[None, :])

    # -- files -----------------------------------------------------------------------------

    def save(self, path: str | Path, **provenance: Any) -> None:
        """Write the weights file (``provenance`` goes into ``meta``)."""
        meta = {**self.meta, **provenance, "format": FORMAT, "encoding": ENCODING,
                "activation": self.activation, "nets": list(self.nets),
                "class_net": self.class_net}
        arrays: dict[str, Any] = {"meta": np.array(json.dumps(meta, sort_keys=True))}
        for name, p in self.nets.items():
            for key, v in p.items():
                arrays[f"{name}.{key}"] = v.astype(np.float32)
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> Networks:
        """Read a weights file written by :meth:`save`."""
        try:
            with np.load(Path(path)) as z:
                meta = json.loads(str(z["meta"]))
                arrays = {k: z[k] for k in z.files if k != "meta"}
        except (OSError, ValueError, KeyError) as exc:
            raise WeightsError(f"cannot read weights file {str(path)!r}: {exc}") from exc
        encoding = meta.get("encoding")
        if meta.get("format") != FORMAT or (encoding != ENCODING
                                            and encoding not in LEGACY_ENCODINGS):
            raise WeightsError(f"weights file {str(path)!r} has format {meta.get('format')!r}, "
                               f"encoding {meta.get('encoding')!r}; expected {FORMAT}, "
                               f"{ENCODING!r}")
        nets: dict[str, dict[str, npt.NDArray[np.float32]]] = {}
        for key, v in arrays.items():
            name, _, part = key.partition(".")
            nets.setdefault(name, {})[part] = _enc.upgrade_w1(v) if part == "w1" else v
        meta["encoding"] = ENCODING
        return cls(nets, meta.get("activation", "sigmoid"), meta.get("class_net"), meta)

    @classmethod
    def default(cls) -> Networks:
        """The shipped networks (loaded once per process)."""
        global _default
        with _default_lock:
            if _default is None:
                nets = cls.load(WEIGHTS_DIR / DEFAULT_WEIGHTS)
                if (WEIGHTS_DIR / DEFAULT_PRUNE_WEIGHTS).exists():
                    nets.prune = cls.load(WEIGHTS_DIR / DEFAULT_PRUNE_WEIGHTS)
                _default = nets
            return _default

"""The notebook's given `load_model()`: the build copies it into the setup cell of notebook.md
(`%include`), and the reference solution imports it from here."""
import json
from fractions import Fraction
from pathlib import Path

import numpy as np


def load_model(path="sequence-v1.json"):
    """The Chapter 11 model of `sequence-v1.json` (Table 11.1 and section 11.2) as numpy float64 arrays.

    Returns a dict: `embeddings` (V, 2), `W_x` (2, 2), `W_h` (2, 2), `b_h` (2,), `W_y` (2, 2),
    `b_y` (2,), `candidates` (["red", "blue"], the order of the logits), `vocabulary`
    (token -> id), `inputs` (name -> list of token ids: short_red, short_blue, long_red, long_blue)
    and `window_baseline` ({"W": (4, 2), "b": (2,)}: the two-token window of section 11.3).
    """
    path = Path(path)
    if not path.is_file():  # outside the notebook's folder: the course's copy of the data
        from autograder.config import DATA_DIR
        path = DATA_DIR / path.name
    raw = json.loads(path.read_text(encoding="utf-8"))

    def array(values):
        return np.array([[float(Fraction(str(v))) for v in row] if isinstance(row, list) else float(Fraction(str(row))) for row in values], dtype=np.float64)

    vocabulary = {entry["token"]: entry["id"] for entry in raw["vocabulary"]}
    model = {key: array(raw[key]) for key in ("embeddings", "W_x", "W_h", "b_h", "W_y", "b_y")}
    model["candidates"] = list(raw["candidates"])
    model["vocabulary"] = vocabulary
    model["inputs"] = {name: [vocabulary[token] for token in tokens] for name, tokens in raw["inputs"].items()}
    model["window_baseline"] = {"W": array(raw["window_baseline"]["W"]), "b": array(raw["window_baseline"]["b"])}
    return model

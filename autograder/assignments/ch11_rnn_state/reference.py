"""Exact SymPy references for ch11_rnn_state (Tables 11.1-11.4, Examples 11.1-11.2, section 11.3,
exercises 11.7.1-11.7.3).

Each grading function has the signature of the student function it grades and accepts the
student's float64 arrays: every float is turned into the exact rational it stores (the course's
weights are dyadic, so nothing is lost), the arithmetic is exact (the recurrence in SymPy's field of
rationals QQ, `exact_model`; the results as SymPy numbers), and `exp` stays symbolic until the
comparison evaluates it to 30 digits. The probabilities are derived as 1 / sum_j exp(z_j - z_i)
and choices by comparing logits, not by the solution's shift-and-normalise code.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp
from sympy.polys.domains import QQ

from ...coursedir.data import exact, sequence
from ...vocabulary.symbolic import decimal_text

#: The search limit of `min_fillers_to_flip` (the contract: None when no count up to it flips).
MAX_FILLERS = 100


# ----------------------------------------------------------------------------- exact conversion
def q(value) -> sp.Expr:
    """One number as an exact SymPy value (a float becomes the rational it stores)."""
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("not a number")
    if isinstance(value, (int, np.integer)):
        return sp.Integer(int(value))
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, str):
        return exact(value)
    return sp.Rational(float(value))


def entries(values) -> list[sp.Expr]:
    """A vector's entries as exact SymPy values, in order."""
    if isinstance(values, sp.MatrixBase):
        return list(values)
    return [q(v) for v in np.asarray(values, dtype=object).ravel()]


def out(vector) -> np.ndarray:
    """A row matrix or a list as a 1-D object array of SymPy numbers (what the checks compare)."""
    values = list(vector)
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


# ----------------------------------------------------------------------------- the engine
def _relu_entry(x: sp.Expr) -> sp.Expr:
    """max(0, x): a number compared directly (SymPy's Max is slow to decide it), anything else by Max."""
    if x.is_number:
        return x if x > 0 else sp.S.Zero
    return sp.Max(0, x)


def relu(v):
    return out([_relu_entry(x) for x in entries(v)])


def softmax(z):
    z = entries(z)
    return out([_share(mine, z) for mine in z])


def _share(mine: sp.Expr, z: list[sp.Expr]) -> sp.Expr:
    """1 / sum_j exp(z_j - mine), written out unevaluated for its one evaluation to DIGITS digits
    (SymPy's simplification of each sum on the way costs several times that evaluation): exactly
    1/n where every z_j equals mine, the only case in which the sum is rational (Lindemann-Weierstrass),
    so a tie is still exact."""
    terms = [sp.S.One if other == mine else sp.exp(other - mine, evaluate=False) for other in z]
    if all(term is sp.S.One for term in terms):
        return sp.Rational(1, len(terms))
    return sp.Pow(sp.Add(*terms, evaluate=False), -1, evaluate=False)


def choose(probs, candidates):
    scores = [q(p) for p in probs]
    best = max(scores)
    return candidates[next(i for i, s in enumerate(scores) if s == best)]


def _qq(value) -> Any:
    """One number as an element of SymPy's field of rationals QQ (its arithmetic without the symbolic
    layer: the engine runs a hundred steps per model of exercise 11.7.1)."""
    return QQ.from_sympy(q(value))


def _sympy(values) -> list[sp.Expr]:
    """A vector of QQ elements as SymPy numbers."""
    return [QQ.to_sympy(v) for v in values]


def _qq_vector(values) -> list:
    """A vector as a list of QQ elements."""
    return [_qq(v) for v in np.asarray(values, dtype=object).ravel()]


def _qq_matrix(values) -> list[list]:
    """A matrix as rows of QQ elements."""
    return [[_qq(v) for v in r] for r in np.asarray(values, dtype=object)]


def _affine(x: list, W: list[list], b: list) -> list:
    """x W + b for a row vector x (QQ elements)."""
    return [sum((x[i] * W[i][j] for i in range(len(x))), b[j]) for j in range(len(b))]


def _relu_qq(v: list) -> list:
    return [x if x > 0 else QQ.zero for x in v]


def _step(x: list, h: list, m: dict) -> list:
    """ReLU(x W_x + h W_h + b_h) of the exact model `m` (`exact_model`)."""
    return _relu_qq(_affine(h, m["W_h"], _affine(x, m["W_x"], m["b_h"])))


def rnn_step(x, h_prev, W_x, W_h, b_h):
    return out(
        _sympy(
            _step(
                _qq_vector(x),
                _qq_vector(h_prev),
                {"W_x": _qq_matrix(W_x), "W_h": _qq_matrix(W_h), "b_h": _qq_vector(b_h)},
            )
        )
    )


def output_logits(h, W_y, b_y):
    return out(_sympy(_affine(_qq_vector(h), _qq_matrix(W_y), _qq_vector(b_y))))


def exact_model(model: dict) -> dict:
    """The numeric parts of a model dict in QQ: matrices as rows, vectors as lists."""
    exact_ = {key: _qq_matrix(model[key]) for key in ("embeddings", "W_x", "W_h", "W_y")}
    exact_.update({key: _qq_vector(model[key]) for key in ("b_h", "b_y")})
    if "window_baseline" in model:
        exact_["window_W"] = _qq_matrix(model["window_baseline"]["W"])
        exact_["window_b"] = _qq_vector(model["window_baseline"]["b"])
    return exact_


def _states(token_ids, m: dict, *, reset_each_token: bool = False) -> list[list]:
    """h_1..h_T (QQ) of the exact model `m` from h_0 = 0 (with `reset_each_token`, every read starts again from 0)."""
    zero = [QQ.zero] * len(m["b_h"])
    h, found = zero, []
    for token in token_ids:
        h = _step(m["embeddings"][int(token)], zero if reset_each_token else h, m)
        found.append(h)
    return found


def states(token_ids, model: dict, *, reset_each_token: bool = False) -> list[list[sp.Expr]]:
    """h_1..h_T from h_0 = 0 (with `reset_each_token`, every read starts again from 0: exercise 11.7.3)."""
    return [_sympy(h) for h in _states(token_ids, exact_model(model), reset_each_token=reset_each_token)]


def _logits(h: list, m: dict) -> list:
    return _affine(h, m["W_y"], m["b_y"])


def run_rnn(token_ids, model):
    m = exact_model(model)
    result = []
    for h in _states(token_ids, m):
        logits = _sympy(_logits(h, m))
        result.append({"h": out(_sympy(h)), "logits": out(logits), "probs": softmax(logits)})
    return result


def _window_hidden(first: int, second: int, m: dict) -> list:
    """The window baseline's hidden layer on the embeddings of two tokens (section 11.3)."""
    return _relu_qq(_affine(m["embeddings"][int(first)] + m["embeddings"][int(second)], m["window_W"], m["window_b"]))


def window_logits(token_ids, model):
    m = exact_model(model)
    return out(_sympy(_logits(_window_hidden(token_ids[-2], token_ids[-1], m), m)))


def filler_logits(model: dict, fillers: int) -> list[sp.Expr]:
    """The final logits of `blue`, `fillers` x `filler`, `key`, `is` (exercise 11.7.1)."""
    ids = model["vocabulary"]
    m = exact_model(model)
    return _sympy(_logits(_states([ids["blue"], *[ids["filler"]] * fillers, ids["key"], ids["is"]], m)[-1], m))


def min_fillers_to_flip(model):
    """The smallest count whose final logits put the first candidate at least level with the rest."""
    ids = model["vocabulary"]
    m = exact_model(model)
    h = _step(m["embeddings"][ids["blue"]], [QQ.zero] * len(m["b_h"]), m)
    for fillers in range(MAX_FILLERS + 1):
        final = h
        for token in ("key", "is"):
            final = _step(m["embeddings"][ids[token]], final, m)
        logits = _logits(final, m)
        if logits[0] >= max(logits):
            return fillers
        h = _step(m["embeddings"][ids["filler"]], h, m)
    return None


# ----------------------------------------------------------------------------- the book's model
def book_model() -> dict:
    """sequence-v1.json with exact SymPy entries (the same keys as the notebook's load_model)."""
    raw = sequence()
    vocabulary = {entry["token"]: entry["id"] for entry in raw["vocabulary"]}

    def grid(values):
        return [[exact(v) for v in r] if isinstance(r, list) else exact(r) for r in values]

    model = {key: grid(raw[key]) for key in ("embeddings", "W_x", "W_h", "b_h", "W_y", "b_y")}
    model["candidates"] = list(raw["candidates"])
    model["vocabulary"] = vocabulary
    model["inputs"] = {name: [vocabulary[t] for t in tokens] for name, tokens in raw["inputs"].items()}
    model["window_baseline"] = {"W": grid(raw["window_baseline"]["W"]), "b": grid(raw["window_baseline"]["b"])}
    return model


def _summary(token_ids, model: dict) -> dict:
    """States, logits and the choice index of one run (exact)."""
    m = exact_model(model)
    hs = _states(token_ids, m)
    logits = [_sympy(_logits(h, m)) for h in hs]
    final = logits[-1]
    choice = next(i for i, z in enumerate(final) if z == max(final))
    return {"h": [_sympy(h) for h in hs], "logits": logits, "choice": choice}


def ex_11_7_1(model):
    """Exercise 11.7.1 for `model`: the fewest fillers that flip the choice to the first candidate,
    and the final state and logits with that many (for a model that flips within MAX_FILLERS)."""
    fillers = min_fillers_to_flip(model)
    if fillers is None:
        raise ValueError("exercise 11.7.1 is asked only of models that flip within MAX_FILLERS fillers")
    ids = model["vocabulary"]
    h = states([ids["blue"], *[ids["filler"]] * fillers, ids["key"], ids["is"]], model)[-1]
    return {"min_fillers": sp.Integer(fillers), "final_h": out(h), "logits": out(filler_logits(model, fillers))}


def ex_11_7_2(model):
    """Exercise 11.7.2 for `model`: both diagonal entries of W_h set to 1 (nothing else changes), the
    final state, logits and choice (the first of the highest logits) of its long blue input."""
    W_h = [
        [sp.Integer(1) if i == j else q(v) for j, v in enumerate(r)]
        for i, r in enumerate(np.asarray(model["W_h"], dtype=object))
    ]
    changed = {**model, "W_h": W_h}
    run = _summary(model["inputs"]["long_blue"], changed)
    return {
        "final_h": out(run["h"][-1]),
        "logits": out(run["logits"][-1]),
        "choice": model["candidates"][run["choice"]],
    }


def ex_11_7_3():
    """11.8: evidence of learning is a parameter comparison (C); activations change with fixed
    weights (B); resetting before each read leaves `is` alone, [0, 0], so red (E)."""
    return {"B", "C", "E"}


def ex_11_7_4():
    """11.8: two right strings prove none of the claims (not A, B, C); controlled observations (D, E)."""
    return {"D", "E"}


def ex_11_7_5():
    """11.8: the application's approval record and execution rules decide (B); activations are not
    approval events (C)."""
    return {"B", "C"}


# ----------------------------------------------------------------------------- book values
def book_values() -> dict:
    """Every value of expected.json under this assignment's prefixes, computed by the engine."""
    model = book_model()
    ids, inputs = model["vocabulary"], model["inputs"]
    values: dict = {}
    for token, index in ids.items():
        values[f"table-11.1/{token}/id"] = index
        values[f"table-11.1/{token}/embedding"] = list(model["embeddings"][index])

    red, blue = _summary(inputs["short_red"], model), _summary(inputs["short_blue"], model)
    red_probs = [list(softmax(z)) for z in red["logits"]]
    old = [[sp.Integer(0)] * 2, *red["h"][:-1]]
    for t in range(3):
        values[f"table-11.2/step-{t + 1}/old-h"] = old[t]
        values[f"table-11.2/step-{t + 1}/new-h"] = red["h"][t]
        prefix = f"table-11.3/step-{t + 1}/"
        values[prefix + "h"], values[prefix + "logits"], values[prefix + "probs"] = (
            red["h"][t],
            red["logits"][t],
            red_probs[t],
        )
        values[prefix + "p-red"] = red_probs[t][0]
        values[f"example-11.2/step-{t + 1}/h"] = blue["h"][t]

    values.update(
        {
            "example-11.1/h3": red["h"][-1],
            "example-11.1/z3": red["logits"][-1],
            "example-11.1/exp-z3-red": sp.exp(red["logits"][-1][0]),
            "example-11.1/p-red": red_probs[-1][0],
            "example-11.1/p-blue": red_probs[-1][1],
            "example-11.1/choice": red["choice"],
            "example-11.2/logits": blue["logits"][-1],
            "example-11.2/p-blue": softmax(blue["logits"][-1])[1],
            "example-11.2/choice": blue["choice"],
        }
    )

    m = exact_model(model)
    short_window = list(window_logits(inputs["short_blue"], model))
    window_hidden = _sympy(_window_hidden(ids["key"], ids["is"], m))
    long_red, long_blue = _summary(inputs["long_red"], model), _summary(inputs["long_blue"], model)
    values.update(
        {
            "section-11.3/window/hidden": list(window_hidden),
            "section-11.3/window/logits": short_window,
            "section-11.3/window/p-red": softmax(short_window)[0],
            "section-11.3/window/choice": short_window.index(max(short_window)),
            # the red coordinate after the eight updates that follow the clue
            "section-11.3/decay-8": long_red["h"][-1][0] / long_red["h"][0][0],
        }
    )
    for colour, run, tokens in (("red", long_red, inputs["long_red"]), ("blue", long_blue, inputs["long_blue"])):
        values[f"table-11.4/{colour}/window-logits"] = list(window_logits(tokens, model))
        values[f"table-11.4/{colour}/final-h"] = run["h"][-1]
        values[f"table-11.4/{colour}/rnn-logits"] = run["logits"][-1]
        values[f"table-11.4/{colour}/p-red"] = softmax(run["logits"][-1])[0]
        values[f"table-11.4/{colour}/choice"] = run["choice"]

    answer = ex_11_7_1(model)
    fillers = int(answer["min_fillers"])
    blue_coordinate = lambda n: filler_logits(model, n)[1] - model["b_y"][1]  # noqa: E731  (W_y is the identity)
    values.update(
        {
            "exercise-11.7.1/blue-coordinate-0-fillers": states([ids["blue"], ids["key"], ids["is"]], model)[-1][1],
            "exercise-11.7.1/min-fillers": fillers,
            "exercise-11.7.1/final-h": list(answer["final_h"]),
            "exercise-11.7.1/logits": list(answer["logits"]),
            "exercise-11.7.1/choice": model["candidates"].index(choose(list(answer["logits"]), model["candidates"])),
            "exercise-11.7.1/blue-coordinate-2-fillers": blue_coordinate(2),
        }
    )

    changed = ex_11_7_2(model)
    values.update(
        {
            "exercise-11.7.2/final-h": list(changed["final_h"]),
            "exercise-11.7.2/logits": list(changed["logits"]),
            "exercise-11.7.2/choice": model["candidates"].index(changed["choice"]),
        }
    )

    reset = _states(inputs["short_red"], m, reset_each_token=True)[-1]
    reset_logits = _sympy(_logits(reset, m))
    values.update(
        {
            "exercise-11.7.3/final-h-reset-each-token": _sympy(reset),
            "exercise-11.7.3/logits-reset-each-token": reset_logits,
            "exercise-11.7.3/choice-reset-each-token": reset_logits.index(max(reset_logits)),
        }
    )
    return values


def _vector(values, fractions: bool = False) -> str:
    return "[" + ", ".join(str(sp.Rational(v)) if fractions else decimal_text(v) for v in values) + "]"


def _probs(values) -> str:
    return "[" + ", ".join(f"{float(sp.N(v, 30)):.6f}" for v in values) + "]"


def book_log() -> list[str]:
    """Tables 11.2, 11.3 and 11.4 line by line, as the book prints them (6-place probabilities)."""
    v = book_values()
    model = book_model()
    names = {index: token for token, index in model["vocabulary"].items()}
    reads = [names[i] for i in model["inputs"]["short_red"]]
    lines = ["Table 11.2 - one set of parameters, used three times (red key is)", "read      input   old h      new h"]
    for t, token in enumerate(reads, start=1):
        embedding = v[f"table-11.1/{token}/embedding"]
        lines.append(
            f"{t}: {token:<5}  {_vector(embedding):<7} "
            f"{_vector(v[f'table-11.2/step-{t}/old-h']):<10} {_vector(v[f'table-11.2/step-{t}/new-h'])}"
        )
    lines += [
        "",
        "Table 11.3 - the full log of the three outputs",
        "read  new h      logits (red, blue)  probs (red, blue)",
    ]
    for t in (1, 2, 3):
        p = f"table-11.3/step-{t}/"
        lines.append(f"{t:>4}  {_vector(v[p + 'h']):<10} {_vector(v[p + 'logits']):<19} {_probs(v[p + 'probs'])}")
    lines += [
        "",
        "Table 11.4 - the long inputs (clue, six fillers, key is)",
        "colour  window logits  RNN final h  RNN logits       RNN p(red)  choice",
    ]
    for colour in ("red", "blue"):
        p = f"table-11.4/{colour}/"
        choice = model["candidates"][v[p + "choice"]]
        verdict = "right" if choice == colour else "wrong"
        lines.append(
            f"{colour:<6}  {_vector(v[p + 'window-logits']):<13}  {_vector(v[p + 'final-h'], fractions=True):<11}  "
            f"{_vector(v[p + 'rnn-logits']):<15}  "
            f"{float(sp.N(v[p + 'p-red'], 30)):.6f}    {choice} ({verdict})"
        )
    return lines

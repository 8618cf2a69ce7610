"""Corpus entries of ch12_gates (setup cell: np, Fraction, plt)."""

from . import mistake, variant

A = "ch12_gates"

ENTRIES = [
    # ------------------------------------------------------------------ sigmoid
    variant(
        A,
        "sigmoid",
        "sigmoid-textbook",
        """
        def sigmoid(a):
            return 1.0 / (1.0 + np.exp(-np.asarray(a, dtype=float)))
    """,
        why="the textbook formula (exp(700) is still finite, so the cases at +-700 stay at 0 and 1)",
    ),
    variant(
        A,
        "sigmoid",
        "sigmoid-tanh-half",
        """
        def sigmoid(a):
            return 0.5 * (1.0 + np.tanh(np.asarray(a, dtype=float) / 2))
    """,
        why="the tanh identity",
    ),
    variant(
        A,
        "sigmoid",
        "sigmoid-vectorize-helper",
        """
        import math

        def _logistic(t):
            if t >= 0:
                return 1.0 / (1.0 + math.exp(-t))
            e = math.exp(t)
            return e / (1.0 + e)


        def sigmoid(a):
            return np.vectorize(_logistic, otypes=[float])(a)
    """,
        why="a math-based helper in the same cell, np.vectorize (a 0-d array for a number)",
    ),
    mistake(
        A,
        "sigmoid",
        "sigmoid-complement",
        """
        def sigmoid(a):
            e = np.exp(-np.asarray(a, dtype=float))
            return e / (1.0 + e)
    """,
        "sigmoid_exponent_sign",
        why="e^-a / (1 + e^-a), which is sigmoid(-a)",
    ),
    # ------------------------------------------------------------------ lstm_cell_update
    variant(
        A,
        "lstm_cell_update",
        "cell-namedtuple",
        """
        from collections import namedtuple

        CellOut = namedtuple("CellOut", ["c", "h"])


        def lstm_cell_update(c_prev, f, i, g, o):
            c = f * c_prev + i * g
            return CellOut(c=c, h=o * np.tanh(np.asarray(c, dtype=float)))
    """,
        why="a namedtuple (c, h)",
    ),
    variant(
        A,
        "lstm_cell_update",
        "cell-math-tanh",
        """
        import math

        def lstm_cell_update(c_prev, f, i, g, o):
            c = f * c_prev + i * g
            if np.ndim(c) == 0:
                return c, o * math.tanh(c)
            return c, np.array([gate * math.tanh(value) for gate, value in zip(o, c)])
    """,
        why="math.tanh of the Fraction, a comprehension for arrays",
    ),
    mistake(
        A,
        "lstm_cell_update",
        "cell-interpolated",
        """
        def lstm_cell_update(c_prev, f, i, g, o):
            c = c_prev + (1 - f) * (g - c_prev)  # move from the old cell towards the candidate
            return c, o * np.tanh(np.asarray(c, dtype=float))
    """,
        "coupled_input_forget_gates",
        why="the cell as an interpolation, f c_prev + (1 - f) g: the input gate ignored",
    ),
    mistake(
        A,
        "lstm_cell_update",
        "cell-float-array",
        """
        def lstm_cell_update(c_prev, f, i, g, o):
            c = np.asarray(f * c_prev + i * g, dtype=float)
            return c, o * np.tanh(c)
    """,
        "float_where_exact",
        why="the cell converted to floats",
    ),
    # ------------------------------------------------------------------ lstm_step
    variant(
        A,
        "lstm_step",
        "lstm-stacked-namedtuple",
        """
        from collections import OrderedDict
        from typing import NamedTuple


        class LSTMStep(NamedTuple):
            h: np.ndarray
            c: np.ndarray
            gates: dict


        def lstm_step(x, h_prev, c_prev, params):
            u = np.concatenate([np.ravel(x), np.ravel(h_prev)]).astype(float)
            A = np.hstack([params["A_f"], params["A_i"], params["A_o"], params["A_g"]])
            b = np.concatenate([params["b_f"], params["b_i"], params["b_o"], params["b_g"]])
            f, i, o, g = np.split(u @ A + b, 4)
            f, i, o, g = sigmoid(f), sigmoid(i), sigmoid(o), np.tanh(g)
            c = f * np.asarray(c_prev, dtype=float) + i * g
            gates = OrderedDict([("f", f), ("i", i), ("o", o), ("g", g)])
            return LSTMStep(h=o * np.tanh(c), c=c, gates=gates)
    """,
        why="one stacked matrix product split in four, a typing.NamedTuple with an OrderedDict of gates",
    ),
    variant(
        A,
        "lstm_step",
        "lstm-split-blocks",
        """
        def lstm_step(x, h_prev, c_prev, params):
            x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
            m = x.shape[0]

            def pre(name):
                A = params["A_" + name]
                return x @ A[:m] + h_prev @ A[m:] + params["b_" + name]

            gates = {name: sigmoid(pre(name)) for name in "fio"}
            gates["g"] = np.tanh(pre("g"))
            c, h = lstm_cell_update(np.asarray(c_prev, dtype=float), gates["f"], gates["i"], gates["g"], gates["o"])
            return h, c, gates
    """,
        why="each A split into its x and h_prev row blocks, a dict comprehension",
    ),
    mistake(
        A,
        "lstm_step",
        "lstm-forget-from-input-weights",
        """
        def lstm_step(x, h_prev, c_prev, params):
            u = np.concatenate([np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)])
            f = sigmoid(u @ params["A_i"] + params["b_f"])  # copied from the line below
            i = sigmoid(u @ params["A_i"] + params["b_i"])
            o = sigmoid(u @ params["A_o"] + params["b_o"])
            g = np.tanh(u @ params["A_g"] + params["b_g"])
            c = f * np.asarray(c_prev, dtype=float) + i * g
            return o * np.tanh(c), c, {"f": f, "i": i, "o": o, "g": g}
    """,
        None,
        why="a copy-paste slip: the forget gate reads A_i",
    ),
    # ------------------------------------------------------------------ gru_step
    variant(
        A,
        "gru_step",
        "gru-interpolation-form",
        """
        def gru_step(x, h_prev, params):
            x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
            u = np.hstack([x, h_prev])
            r = sigmoid(u @ params["A_r"] + params["b_r"])
            z = sigmoid(u @ params["A_z"] + params["b_z"])
            g = np.tanh(x @ params["W_g"] + (r * h_prev) @ params["U_g"] + params["b_g"])
            return g + z * (h_prev - g)
    """,
        why="h = g + z (h_prev - g), the same mix",
    ),
    variant(
        A,
        "gru_step",
        "gru-list-comprehension",
        """
        def gru_step(x, h_prev, params):
            x, h = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
            m = len(x)

            def gate(name):
                A = params["A_" + name]
                return sigmoid(x @ A[:m] + h @ A[m:] + params["b_" + name])

            r, z = gate("r"), gate("z")
            g = np.tanh(x @ params["W_g"] + (r * h) @ params["U_g"] + params["b_g"])
            return [zi * hi + (1 - zi) * gi for zi, hi, gi in zip(z, h, g)]
    """,
        why="a list, coordinate by coordinate",
    ),
    mistake(
        A,
        "gru_step",
        "gru-update-gate-tanh",
        """
        def gru_step(x, h_prev, params):
            x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
            u = np.concatenate([x, h_prev])
            r = sigmoid(u @ params["A_r"] + params["b_r"])
            z = np.tanh(u @ params["A_z"] + params["b_z"])  # the update as a tanh
            g = np.tanh(x @ params["W_g"] + (r * h_prev) @ params["U_g"] + params["b_g"])
            return z * h_prev + (1 - z) * g
    """,
        "gru_update_gate_tanh",
        why="the update gate through tanh: a gate that can be negative",
    ),
    mistake(
        A,
        "gru_step",
        "gru-reset-on-product",
        """
        def gru_step(x, h_prev, params):
            x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
            u = np.concatenate([x, h_prev])
            r = sigmoid(u @ params["A_r"] + params["b_r"])
            z = sigmoid(u @ params["A_z"] + params["b_z"])
            recurrent = h_prev @ params["U_g"]
            g = np.tanh(x @ params["W_g"] + r * recurrent + params["b_g"])
            return z * h_prev + (1 - z) * g
    """,
        "gru_reset_after_matmul",
        why="the reset gate scales h_prev U_g instead of h_prev",
    ),
    mistake(
        A,
        "gru_step",
        "gru-move-towards-candidate",
        """
        def gru_step(x, h_prev, params):
            x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
            u = np.concatenate([x, h_prev])
            r = sigmoid(u @ params["A_r"] + params["b_r"])
            z = sigmoid(u @ params["A_z"] + params["b_z"])
            g = np.tanh(x @ params["W_g"] + (r * h_prev) @ params["U_g"] + params["b_g"])
            return h_prev + z * (g - h_prev)  # z = how far to move towards the candidate
    """,
        "gru_complementary_update",
        why="z read as the step towards the candidate: (1 - z) h_prev + z g",
    ),
    # ------------------------------------------------------------------ retention
    variant(
        A,
        "retention",
        "retention-sympy-reduce",
        """
        import operator
        from functools import reduce

        import sympy as sp

        def retention(f, steps):
            return reduce(operator.mul, [sp.Rational(f)] * steps, sp.Integer(1))
    """,
        why="functools.reduce over SymPy Rationals",
    ),
    mistake(
        A,
        "retention",
        "retention-linear",
        """
        def retention(f, steps):
            return 1 - (1 - f) * steps
    """,
        None,
        why="the loss per edge subtracted, not multiplied: linear decay",
    ),
    mistake(
        A,
        "retention",
        "retention-math-pow",
        """
        import math

        def retention(f, steps):
            return math.pow(f, steps)
    """,
        "float_where_exact",
        why="math.pow: the right value, as a float",
    ),
    # ------------------------------------------------------------------ parameter counts (one cell)
    variant(
        A,
        "lstm_param_count",
        "count-lstm-four-rnns",
        """
        def lstm_param_count(D, H):
            return 4 * rnn_param_count(D, H)
    """,
        why="four RNN blocks, through the other function",
    ),
    variant(
        A,
        "lstm_param_count_two_bias",
        "count-two-bias-plus",
        """
        def lstm_param_count_two_bias(D, H):
            return lstm_param_count(D, H) + 4 * H
    """,
        why="the one-bias count plus a second bias per block",
    ),
    variant(
        A,
        "gru_param_count",
        "count-gru-numpy",
        """
        def gru_param_count(D, H):
            return np.int64(3) * (D * H + H * H + H)
    """,
        why="a numpy integer",
    ),
    mistake(
        A,
        "rnn_param_count",
        "count-rnn-two-biases",
        """
        def rnn_param_count(D, H):
            return (D + H) * H + 2 * H
    """,
        "rnn_count_two_biases",
        why="an input bias and a recurrent bias",
    ),
    # ------------------------------------------------------------------ exercises
    variant(
        A,
        "ex_12_7_4",
        "ex4-ordereddict",
        """
        from collections import OrderedDict

        def ex_12_7_4(c_prev, f, i, g, o):
            answer = OrderedDict()
            answer["kept"] = f * c_prev
            answer["written"] = i * g
            answer["c"] = answer["kept"] + answer["written"]
            answer["h"] = o * float(np.tanh(float(answer["c"])))
            answer["c with o = 0"] = answer["c"]
            answer["h with o = 0"] = 0 * answer["h"]
            return answer
    """,
        why="an OrderedDict built step by step",
    ),
    variant(
        A,
        "ex_12_7_4",
        "ex4-cell-update",
        """
        def ex_12_7_4(c_prev, f, i, g, o):
            c, h = lstm_cell_update(c_prev, f, i, g, o)
            c_closed, h_closed = lstm_cell_update(c_prev, f, i, g, 0)
            return {"kept": f * c_prev, "written": i * g, "c": c, "h": h, "c with o = 0": c_closed, "h with o = 0": h_closed}
    """,
        why="through the notebook's lstm_cell_update, twice",
    ),
    variant(
        A,
        "ex_12_7_5",
        "ex5-sympy",
        """
        import sympy as sp

        def ex_12_7_5(h_prev, z, r, candidate):
            z = sp.Rational(z)
            return {"keep weight": z, "candidate weight": 1 - z, "h": h_prev + (1 - z) * (candidate - h_prev)}
    """,
        why="SymPy Rationals, the mix as a step from h_prev towards the candidate",
    ),
    mistake(
        A,
        "ex_12_7_5",
        "ex5-z-steps-to-candidate",
        """
        def ex_12_7_5(h_prev, z, r, candidate):
            step = z  # how far the state moves towards the candidate
            return {"keep weight": 1 - step, "candidate weight": step, "h": h_prev + step * (candidate - h_prev)}
    """,
        "ex_complementary_convention",
        why="z read as the step towards the candidate (the second text's convention)",
    ),
    # ------------------------------------------------------------------ issue 32: more styles
    variant(
        A,
        "sigmoid",
        "sigmoid-piecewise-stable",
        """
        def sigmoid(a):
            a = np.asarray(a, dtype=float)
            out = np.empty_like(a)
            pos = a >= 0
            out[pos] = 1.0 / (1.0 + np.exp(-a[pos]))
            ea = np.exp(a[~pos])
            out[~pos] = ea / (1.0 + ea)
            return out if out.ndim else float(out)
    """,
        why="scipy-free piecewise stable form: masks for a >= 0 and a < 0, a float for a number",
    ),
    variant(
        A,
        "lstm_step",
        "lstm-one-matmul-split-zip",
        """
        from collections import namedtuple

        StepResult = namedtuple("StepResult", "h c gates")
        ORDER = ("f", "i", "o", "g")


        def lstm_step(x, h_prev, c_prev, params):
            u = np.hstack((np.asarray(x, dtype=float).ravel(), np.asarray(h_prev, dtype=float).ravel()))
            W = np.concatenate([params["A_" + k] for k in ORDER], axis=1)
            b = np.concatenate([params["b_" + k] for k in ORDER])
            blocks = dict(zip(ORDER, np.split(u @ W + b, len(ORDER))))
            gates = {k: (np.tanh(v) if k == "g" else 1 / (1 + np.exp(-v))) for k, v in blocks.items()}
            c = gates["f"] * np.asarray(c_prev, dtype=float) + gates["i"] * gates["g"]
            return StepResult(gates["o"] * np.tanh(c), c, gates)
    """,
        why="one stacked matmul in the chapter's order, np.split, a collections.namedtuple result",
    ),
    variant(
        A,
        "gru_step",
        "gru-explicit-loops",
        """
        import math


        def gru_step(x, h_prev, params):
            x = [float(v) for v in x]
            h = [float(v) for v in h_prev]
            m, d = len(x), len(h)
            u = x + h

            def gate(name, j):
                A, b = params["A_" + name], params["b_" + name]
                s = b[j] + sum(u[k] * A[k][j] for k in range(m + d))
                return 1.0 / (1.0 + math.exp(-s)) if s >= 0 else math.exp(s) / (1.0 + math.exp(s))

            r = [gate("r", j) for j in range(d)]
            z = [gate("z", j) for j in range(d)]
            new = []
            for j in range(d):
                s = params["b_g"][j]
                for k in range(m):
                    s += x[k] * params["W_g"][k][j]
                for k in range(d):
                    s += r[k] * h[k] * params["U_g"][k][j]
                new.append(z[j] * h[j] + (1 - z[j]) * math.tanh(s))
            return np.array(new)
    """,
        why="plain Python loops over every coordinate, math.exp in a stable branch",
    ),
    variant(
        A,
        "gru_param_count",
        "count-gru-math-prod",
        """
        import math


        def gru_param_count(D, H):
            shapes = [(D + H, H), (H,)] * 3  # A and b of r, z and the candidate
            return sum(math.prod(shape) for shape in shapes)
    """,
        why="the shapes listed, math.prod of each",
    ),
    variant(
        A,
        "lstm_param_count",
        "count-lstm-math-prod",
        """
        from math import prod


        def lstm_param_count(D, H):
            per_block = prod((D + H, H)) + prod((H,))
            return len("fiog") * per_block
    """,
        why="math.prod per block, times the number of blocks",
    ),
    variant(
        A,
        "retention",
        "retention-loop",
        """
        def retention(f, steps):
            left = Fraction(1)
            for _ in range(steps):
                left = left * f
            return left
    """,
        why="an explicit loop from 1, which leaves zero edges at 1",
    ),
    variant(
        A,
        "ex_12_7_5",
        "ex5-namedtuple-weights",
        """
        from collections import namedtuple

        Mix = namedtuple("Mix", "keep candidate")


        def ex_12_7_5(h_prev, z, r, candidate):
            w = Mix(keep=z, candidate=1 - z)  # r already acted inside the candidate
            return {"keep weight": w.keep, "candidate weight": w.candidate, "h": w.keep * h_prev + w.candidate * candidate}
    """,
        why="the two weights as a namedtuple, the dict built from it",
    ),
    mistake(
        A,
        "lstm_step",
        "lstm-torch-chunk-order",
        """
        def lstm_step(x, h_prev, c_prev, params):
            u = np.concatenate([np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)])
            W = np.concatenate([params[k] for k in ("A_f", "A_i", "A_o", "A_g")], axis=1)
            b = np.concatenate([params[k] for k in ("b_f", "b_i", "b_o", "b_g")])
            gates = {}
            for name, chunk in zip("ifgo", np.split(u @ W + b, 4)):  # torch.chunk(gates, 4): input, forget, cell, output
                gates[name] = np.tanh(chunk) if name == "g" else sigmoid(chunk)
            c = gates["f"] * np.asarray(c_prev, dtype=float) + gates["i"] * gates["g"]
            return gates["o"] * np.tanh(c), c, gates
    """,
        "lstm_pytorch_gate_order",
        why="the stacked blocks chunked in PyTorch's i, f, g, o order",
    ),
    mistake(
        A,
        "gru_param_count",
        "count-gru-like-lstm",
        """
        def gru_param_count(D, H):
            return 4 * H * (D + H + 1)  # 4H(D + H) weights and 4H biases
    """,
        "gru_count_four_blocks",
        why="the LSTM's four blocks counted for the GRU",
    ),
    mistake(
        A,
        "ex_12_7_5",
        "ex5-reset-zeroes-kept",
        """
        def ex_12_7_5(h_prev, z, r, candidate):
            keep = z * r  # the reset gate wipes what is kept: r = 0 erases the state
            cand = 1 - z
            return {"keep weight": keep, "candidate weight": cand, "h": keep * h_prev + cand * candidate}
    """,
        "ex_reset_erases_state",
        why="12.7.5: r = 0 read as erasing the state, keep weight z * r",
    ),
    mistake(
        A,
        "gru_step",
        "gru-residual-add",
        """
        def gru_step(x, h_prev, params):
            x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
            u = np.concatenate([x, h_prev])
            r = sigmoid(u @ params["A_r"] + params["b_r"])
            z = sigmoid(u @ params["A_z"] + params["b_z"])
            g = np.tanh(x @ params["W_g"] + (r * h_prev) @ params["U_g"] + params["b_g"])
            update = (1 - z) * g
            return h_prev + update  # residual: keep the old state, add the update
    """,
        "gru_residual_update",
        why="a residual update h_prev + (1 - z) g",
    ),
    mistake(
        A,
        "lstm_cell_update",
        "cell-residual-add",
        """
        def lstm_cell_update(c_prev, f, i, g, o):
            c = c_prev + i * g  # the cell accumulates: old plus gated new
            return c, o * np.tanh(np.asarray(c, dtype=float))
    """,
        "cell_without_forget_gate",
        why="a residual cell c_prev + i g, the forget gate left out",
    ),
    mistake(
        A,
        "sigmoid",
        "sigmoid-float32",
        """
        def sigmoid(a):
            a = np.asarray(a, dtype=np.float32)  # half the memory
            return 1 / (1 + np.exp(-a))
    """,
        "float32_precision",
        why="the right formula computed in float32",
    ),
    mistake(
        A,
        "lstm_step",
        "lstm-cell-in-place",
        """
        def lstm_step(x, h_prev, c_prev, params):
            u = np.concatenate([np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)])
            f = sigmoid(u @ params["A_f"] + params["b_f"])
            i = sigmoid(u @ params["A_i"] + params["b_i"])
            o = sigmoid(u @ params["A_o"] + params["b_o"])
            g = np.tanh(u @ params["A_g"] + params["b_g"])
            c = np.asarray(c_prev, dtype=float)  # the caller's own array when it is float already
            c *= f
            c += i * g
            return o * np.tanh(c), c, {"f": f, "i": i, "o": o, "g": g}
    """,
        None,
        why="the cell updated in place: the caller's c_prev changed (right values; the argument guard catches it)",
    ),
    mistake(
        A,
        "gru_step",
        "gru-state-in-place",
        """
        def gru_step(x, h_prev, params):
            x = np.asarray(x, dtype=float)
            u = np.concatenate([x, h_prev])
            r = sigmoid(u @ params["A_r"] + params["b_r"])
            z = sigmoid(u @ params["A_z"] + params["b_z"])
            g = np.tanh(x @ params["W_g"] + (r * h_prev) @ params["U_g"] + params["b_g"])
            h_prev *= z
            h_prev += (1 - z) * g
            return h_prev
    """,
        None,
        why="the new state written into h_prev in place (right values; the argument guard catches it)",
    ),
]

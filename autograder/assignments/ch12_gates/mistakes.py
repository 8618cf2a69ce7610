"""Catalogued mistakes of ch12_gates: each is the solution function as a student gets it wrong.

Mistakes of `sigmoid` and `lstm_cell_update` also change the checks of their callers (`lstm_step`,
`gru_step`), because the mistaken output is computed by running the solution module with the function
swapped in. Exercise 12.7.4 computes its scalar cell itself (on scalars a dot product is the product,
so `dot_product_not_elementwise` would be right on every draw of it): its mistakes are its own.
"""
import numpy as np

from solutions.ch12_gates import lstm_cell_update, sigmoid  # noqa: F401 (resolved in the solution namespace)

from ...catalogue import mistake

# --- sigmoid ------------------------------------------------------------------------------------


@mistake("sigmoid")
def sigmoid_exponent_sign(a):
    a = np.asarray(a, dtype=float)
    return 1.0 / (1.0 + np.exp(a))


# --- lstm_cell_update: the cell path of Example 12.3 ---------------------------------------------


@mistake("lstm_cell_update")
def output_gate_on_cell(c_prev, f, i, g, o):
    c = o * (f * c_prev + i * g)
    return c, np.tanh(np.asarray(c, dtype=float))


@mistake("lstm_cell_update")
def h_without_tanh(c_prev, f, i, g, o):
    c = f * c_prev + i * g
    return c, o * c


@mistake("lstm_cell_update")
def sigmoid_on_cell(c_prev, f, i, g, o):
    c = f * c_prev + i * g
    return c, o * sigmoid(np.asarray(c, dtype=float))


@mistake("lstm_cell_update")
def coupled_input_forget_gates(c_prev, f, i, g, o):
    c = f * c_prev + (1 - f) * g
    return c, o * np.tanh(np.asarray(c, dtype=float))


@mistake("lstm_cell_update")
def dot_product_not_elementwise(c_prev, f, i, g, o):
    c = np.dot(f, c_prev) + np.dot(i, g)
    return c, o * np.tanh(np.asarray(c, dtype=float))


# --- lstm_step: where the gates come from --------------------------------------------------------


def _lstm_gates(x, h_prev, params, *, h_first, candidate):
    """The four gate values of an LSTM step, with the concatenation order and candidate activation given."""
    x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
    u = np.concatenate([h_prev, x] if h_first else [x, h_prev])
    f = sigmoid(u @ params["A_f"] + params["b_f"])
    i = sigmoid(u @ params["A_i"] + params["b_i"])
    o = sigmoid(u @ params["A_o"] + params["b_o"])
    g = candidate(u @ params["A_g"] + params["b_g"])
    return {"f": f, "i": i, "o": o, "g": g}


@mistake("lstm_step")
def lstm_concat_h_first(x, h_prev, c_prev, params):
    gates = _lstm_gates(x, h_prev, params, h_first=True, candidate=np.tanh)
    c, h = lstm_cell_update(np.asarray(c_prev, dtype=float), gates["f"], gates["i"], gates["g"], gates["o"])
    return h, c, gates


@mistake("lstm_step")
def lstm_candidate_sigmoid(x, h_prev, c_prev, params):
    gates = _lstm_gates(x, h_prev, params, h_first=False, candidate=sigmoid)
    c, h = lstm_cell_update(np.asarray(c_prev, dtype=float), gates["f"], gates["i"], gates["g"], gates["o"])
    return h, c, gates


# --- gru_step: the conventions of section 12.4.2 -------------------------------------------------


def _gru_variant(x, h_prev, params, *, h_first=False, candidate=np.tanh, reset_after=False, reset_kept=False, complementary=False):
    """A GRU step with one convention changed; the defaults give Cho's convention of the chapter."""
    x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
    u = np.concatenate([h_prev, x] if h_first else [x, h_prev])
    r = sigmoid(u @ params["A_r"] + params["b_r"])
    z = sigmoid(u @ params["A_z"] + params["b_z"])
    recurrent = r * (h_prev @ params["U_g"]) if reset_after else (r * h_prev) @ params["U_g"]
    g = candidate(x @ params["W_g"] + recurrent + params["b_g"])
    kept = r * h_prev if reset_kept else h_prev
    return (1 - z) * kept + z * g if complementary else z * kept + (1 - z) * g


@mistake("gru_step")
def gru_complementary_update(x, h_prev, params):
    return _gru_variant(x, h_prev, params, complementary=True)


@mistake("gru_step")
def gru_reset_on_kept_branch(x, h_prev, params):
    return _gru_variant(x, h_prev, params, reset_kept=True)


@mistake("gru_step")
def gru_reset_after_matmul(x, h_prev, params):
    return _gru_variant(x, h_prev, params, reset_after=True)


@mistake("gru_step")
def gru_concat_h_first(x, h_prev, params):
    return _gru_variant(x, h_prev, params, h_first=True)


@mistake("gru_step")
def gru_candidate_sigmoid(x, h_prev, params):
    return _gru_variant(x, h_prev, params, candidate=sigmoid)


# --- retention along the direct cell path ---------------------------------------------------------


@mistake("retention")
def retention_forget_as_loss(f, steps):
    return (1 - f) ** steps


@mistake("retention")
def retention_counts_states(f, steps):
    return f ** (steps + 1)


# --- parameter counts (Table 12.3, the third text's 24 / 96 / 108 / 72) --------------------------


@mistake("rnn_param_count")
def rnn_count_without_bias(D, H):
    return D * H + H * H


@mistake("rnn_param_count")
def rnn_count_two_biases(D, H):
    return D * H + H * H + 2 * H


@mistake("lstm_param_count")
def lstm_count_two_biases(D, H):
    return 4 * (D * H + H * H + 2 * H)


@mistake("lstm_param_count")
def lstm_count_without_bias(D, H):
    return 4 * (D * H + H * H)


@mistake("lstm_param_count_two_bias")
def lstm_two_bias_count_one_bias(D, H):
    return 4 * (D * H + H * H + H)


@mistake("gru_param_count")
def gru_count_two_biases(D, H):
    return 3 * (D * H + H * H + 2 * H)


@mistake("gru_param_count")
def gru_count_without_bias(D, H):
    return 3 * (D * H + H * H)


# --- exercise answers ------------------------------------------------------------------------------


@mistake("ex_12_7_4")
def ex_output_gate_erases_cell(c_prev, f, i, g, o):
    kept, written = f * c_prev, i * g
    c, c_closed = o * (kept + written), 0 * (kept + written)  # the output gate on the stored cell
    return {"kept": kept, "written": written, "c": c, "h": np.tanh(np.asarray(c, dtype=float)),
            "c with o = 0": c_closed, "h with o = 0": np.tanh(np.asarray(c_closed, dtype=float))}


@mistake("ex_12_7_4")
def ex_h_without_tanh(c_prev, f, i, g, o):
    kept, written = f * c_prev, i * g
    c = kept + written
    return {"kept": kept, "written": written, "c": c, "h": o * c, "c with o = 0": c, "h with o = 0": 0 * c}


@mistake("ex_12_7_5")
def ex_reset_on_kept_branch(h_prev, z, r, candidate):
    return {"keep weight": z, "candidate weight": 1 - z, "h": z * (r * h_prev) + (1 - z) * candidate}


@mistake("ex_12_7_5")
def ex_complementary_convention(h_prev, z, r, candidate):
    return {"keep weight": 1 - z, "candidate weight": z, "h": (1 - z) * h_prev + z * candidate}

"""Reference solution of ch12_gates: built by `release` from autograder/assignments/ch12_gates/notebook.md (edit that file), its setup and solution cells."""
import numpy as np
from fractions import Fraction


def sigmoid(a):
    """The logistic function 1 / (1 + exp(-a)), element-wise, for a number or a numpy array (float).

    Large |a| must give values at 0 or 1 without overflow or NaN.
    """
    ### BEGIN SOLUTION
    a = np.asarray(a, dtype=float)
    small = np.exp(-np.abs(a))  # never overflows
    return np.where(a >= 0, 1.0 / (1.0 + small), small / (1.0 + small))[()]
    ### END SOLUTION


def lstm_cell_update(c_prev, f, i, g, o):
    """The LSTM cell and hidden value from given gate values (Example 12.3).

    The new cell is f c_prev + i g and the hidden value o tanh(c), coordinate by coordinate. The
    inputs are numbers or 1-D numpy arrays of one length (entries may be Fractions). Returns the
    tuple (c, h). `c` is exact: Fraction in, Fraction out. `h` passes through tanh, so it is a float
    (np.tanh(np.asarray(c, dtype=float)) works for a Fraction and for an array of them).
    """
    ### BEGIN SOLUTION
    c = f * c_prev + i * g
    h = o * np.tanh(np.asarray(c, dtype=float))
    return c, h
    ### END SOLUTION


def ex_12_7_4(c_prev, f, i, g, o):
    """Exercise 12.7.4: one LSTM cell with old cell c_prev, forget gate f, input gate i, candidate g and
    output gate o, and again with the output gate changed to 0.

    Returns a dict: the exact (Fraction in, Fraction out) "kept" (f * c_prev) and "written" (i * g)
    parts, the new cell "c", the hidden value "h" (through tanh, a float), and "c with o = 0" and
    "h with o = 0". The book asks it for cell 0.8, f 0.5, i 0.25, g -0.4, o 1.
    """
    ### BEGIN SOLUTION
    kept, written = f * c_prev, i * g
    c = kept + written
    tanh_c = np.tanh(np.asarray(c, dtype=float))
    return {"kept": kept, "written": written, "c": c, "h": o * tanh_c, "c with o = 0": c, "h with o = 0": 0 * tanh_c}
    ### END SOLUTION


def lstm_step(x, h_prev, c_prev, params):
    """One LSTM step (section 12.4.1), row vectors: x (m,), h_prev (d,), c_prev (d,).

    u = [x, h_prev] (x first); f, i, o = sigmoid(u A + b) and g = tanh(u A_g + b_g) with the
    matrices params["A_f"], params["A_i"], params["A_o"], params["A_g"] of shape (m + d, d) and
    the biases params["b_f"], ... of shape (d,). Returns (h, c, gates), gates = {"f", "i", "o", "g"}.
    """
    ### BEGIN SOLUTION
    u = np.concatenate([np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)])
    f = sigmoid(u @ params["A_f"] + params["b_f"])
    i = sigmoid(u @ params["A_i"] + params["b_i"])
    o = sigmoid(u @ params["A_o"] + params["b_o"])
    g = np.tanh(u @ params["A_g"] + params["b_g"])
    c, h = lstm_cell_update(np.asarray(c_prev, dtype=float), f, i, g, o)
    return h, c, {"f": f, "i": i, "o": o, "g": g}
    ### END SOLUTION


def gru_step(x, h_prev, params):
    """One GRU step in Cho's convention (section 12.4.2), row vectors: x (m,), h_prev (d,).

    u = [x, h_prev]; r = sigmoid(u A_r + b_r), z = sigmoid(u A_z + b_z);
    g = tanh(x W_g + (r * h_prev) U_g + b_g); h = z * h_prev + (1 - z) * g.
    params: A_r, A_z (m + d, d), W_g (m, d), U_g (d, d), b_r, b_z, b_g (d,). Returns h (d,).
    """
    ### BEGIN SOLUTION
    x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
    u = np.concatenate([x, h_prev])
    r = sigmoid(u @ params["A_r"] + params["b_r"])
    z = sigmoid(u @ params["A_z"] + params["b_z"])
    g = np.tanh(x @ params["W_g"] + (r * h_prev) @ params["U_g"] + params["b_g"])
    return z * h_prev + (1 - z) * g
    ### END SOLUTION


def ex_12_7_5(h_prev, z, r, candidate):
    """Exercise 12.7.5: the final mix of the GRU of section 12.4.2 (Cho's convention) for old state
    h_prev, update gate z and reset gate r, with the candidate g already computed (r acted inside it).

    Returns a dict of exact values (Fraction in, Fraction out): "keep weight" (the weight of the kept
    branch h_prev in the mix), "candidate weight" (the weight of g) and "h" (the new state). The book
    asks it for z = 1, r = 0, h_prev = 0.8.
    """
    ### BEGIN SOLUTION
    return {"keep weight": z, "candidate weight": 1 - z, "h": z * h_prev + (1 - z) * candidate}
    ### END SOLUTION


def retention(f, steps):
    """What is left of an old cell value after `steps` edges of the direct cell path with the
    forget gate fixed at f and nothing written (section 12.4). Exact in, exact out."""
    ### BEGIN SOLUTION
    return f**steps
    ### END SOLUTION


def rnn_param_count(D, H):
    """Parameters of a simple RNN cell (W_x, W_h, one bias), input width D, hidden width H."""
    ### BEGIN SOLUTION
    return D * H + H * H + H
    ### END SOLUTION


def lstm_param_count(D, H):
    """Parameters of the LSTM cell of section 12.4.1: four blocks (f, i, o, g), one bias each."""
    ### BEGIN SOLUTION
    return 4 * (D * H + H * H + H)
    ### END SOLUTION


def lstm_param_count_two_bias(D, H):
    """Parameters of an LSTM cell that stores two bias vectors per block (an input bias and a
    recurrent bias, as some libraries do)."""
    ### BEGIN SOLUTION
    return 4 * (D * H + H * H + 2 * H)
    ### END SOLUTION


def gru_param_count(D, H):
    """Parameters of the GRU cell of section 12.4.2: three blocks (r, z, candidate), one bias each."""
    ### BEGIN SOLUTION
    return 3 * (D * H + H * H + H)
    ### END SOLUTION

"""Reference solution of ch12_bptt: built by `release` from autograder/assignments/ch12_bptt/notebook.md (edit that file), its setup and solution cells."""
import numpy as np
from fractions import Fraction


def scalar_forward(xs, w, h0=0):
    """States [h_1, ..., h_T] of h_t = x_t + w h_{t-1} (Example 12.1). Exact in, exact out."""
    ### BEGIN SOLUTION
    states, h = [], h0
    for x in xs:
        h = x + w * h
        states.append(h)
    return states
    ### END SOLUTION


def bptt_scalar(xs, w, target, h0=0):
    """BPTT for L = 1/2 (h_T - target)^2 (Table 12.1). Exact in, exact out.

    Returns a dict: `states` [h_1..h_T], `loss`, `dL_dh` [dL/dh_1..dL/dh_T],
    `contributions` [dL/dh_t * h_{t-1} for each use of w], `grad` (their sum).
    """
    ### BEGIN SOLUTION
    states = scalar_forward(xs, w, h0)
    previous = [h0] + states[:-1]
    error = states[-1] - target
    dL_dh = [error]
    for _ in states[:-1]:
        dL_dh.insert(0, dL_dh[0] * w)
    contributions = [d * h for d, h in zip(dL_dh, previous)]
    grad = sum(contributions)
    return {"states": states, "loss": error * error / 2, "dL_dh": dL_dh, "contributions": contributions, "grad": grad}
    ### END SOLUTION


def sgd_update(w, grad, lr):
    """One gradient step w - lr * grad. Exact in, exact out."""
    ### BEGIN SOLUTION
    return w - lr * grad
    ### END SOLUTION


def update_and_recompute(xs, w, target, lr):
    """One training step of Example 12.1: update w, then recompute the forward pass with it.

    Returns a dict: `w` (the new weight), `states` (recomputed), `loss` (recomputed).
    """
    ### BEGIN SOLUTION
    w_new = sgd_update(w, bptt_scalar(xs, w, target)["grad"], lr)
    states = scalar_forward(xs, w_new)
    return {"w": w_new, "states": states, "loss": (states[-1] - target) ** 2 / 2}
    ### END SOLUTION


def signal_multiplier(factor, distance):
    """The factor a small change is multiplied by across `distance` edges (Table 12.2). Exact."""
    ### BEGIN SOLUTION
    return factor ** distance
    ### END SOLUTION


def polynomial_grad(w):
    """dL/dw of L(w) = 1/2 (w^2 - 1)^2, the independent check of Example 12.1. Exact."""
    ### BEGIN SOLUTION
    return 2 * w * (w * w - 1)
    ### END SOLUTION


def finite_difference_grad(f, w, eps=1e-6):
    """Central difference (f(w + eps) - f(w - eps)) / (2 eps) of a scalar function f at w, with the eps given."""
    ### BEGIN SOLUTION
    return (f(w + eps) - f(w - eps)) / (2 * eps)
    ### END SOLUTION


def tanh_local_rate(a):
    """The local rate 1 - tanh(a)^2 of tanh at a (float)."""
    ### BEGIN SOLUTION
    return 1 - np.tanh(a) ** 2
    ### END SOLUTION


def rnn_backward(xs, h0, W_x, W_h, b, dh_direct):
    """BPTT through h_t = tanh(x_t W_x + h_{t-1} W_h + b) (row vectors).

    xs (T, D), h0 (H,), W_x (D, H), W_h (H, H), b (H,), dh_direct (T, H): the loss gradient that
    reaches each h_t directly. delta_t = (dh_direct_t + delta_{t+1} W_h^T) * (1 - h_t^2).
    Returns a dict of sums over time: `dW_x` (D, H), `dW_h` (H, H), `db` (H,), `dh0` (H,).
    """
    ### BEGIN SOLUTION
    xs, h0 = np.asarray(xs, dtype=float), np.asarray(h0, dtype=float)
    states = [h0]
    for x in xs:
        states.append(np.tanh(x @ W_x + states[-1] @ W_h + b))
    dW_x, dW_h, db = np.zeros_like(W_x, dtype=float), np.zeros_like(W_h, dtype=float), np.zeros_like(b, dtype=float)
    carry = np.zeros_like(h0)
    for t in reversed(range(len(xs))):
        delta = (dh_direct[t] + carry) * (1 - states[t + 1] ** 2)
        dW_x += np.outer(xs[t], delta)
        dW_h += np.outer(states[t], delta)
        db += delta
        carry = delta @ W_h.T
    return {"dW_x": dW_x, "dW_h": dW_h, "db": db, "dh0": carry}
    ### END SOLUTION


def clip_by_global_norm(grads, max_norm):
    """Scaled float copies of the arrays in `grads` (integer arrays too) whose joint L2 norm is at most
    max_norm (direction kept); the arrays given are left unchanged."""
    ### BEGIN SOLUTION
    norm = np.sqrt(sum(float(np.sum(np.square(g))) for g in grads))
    scale = max_norm / norm if norm > max_norm else 1.0
    return [np.array(g, dtype=float) * scale for g in grads]
    ### END SOLUTION


def ex_12_7_1(rate, factor, distance):
    """Exercise 12.7.1: a loss rate `rate` at a later state is carried back across `distance` edges,
    each with local rate `factor`. Returns the rate that reaches the earlier state (exact: Fraction
    in, Fraction out). The book asks it for rate 2 and four edges of factor 0.5, then 1.5.
    """
    ### BEGIN SOLUTION
    return rate * signal_multiplier(factor, distance)
    ### END SOLUTION


def ex_12_7_2(xs, w, target, lr):
    """Exercise 12.7.2 for h_t = x_t + w h_{t-1} from h_0 = 0 and L = 1/2 (h_T - target)^2: a program
    that counts only the last read of w misses the other contributions. Returns a dict of exact values
    (Fraction): "missing contribution" (the sum of the contributions of every read but the last) and
    "w_new" (w after one SGD step with learning rate lr and the full gradient). The book asks it for
    Example 12.1 with learning rate 0.1.
    """
    ### BEGIN SOLUTION
    table = bptt_scalar(xs, w, target)
    return {"missing contribution": sum(table["contributions"][:-1]), "w_new": sgd_update(w, table["grad"], lr)}
    ### END SOLUTION

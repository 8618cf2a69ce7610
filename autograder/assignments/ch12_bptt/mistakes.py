"""Catalogued mistakes of ch12_bptt: each is the solution function as a student gets it wrong."""
import numpy as np

from solutions.ch12_bptt import bptt_scalar as _bptt_scalar
from solutions.ch12_bptt import scalar_forward as _scalar_forward

from ...catalogue import mistake


@mistake("scalar_forward")
def old_state_not_carried(xs, w, h0=0):
    return [x + w * h0 for x in xs]


@mistake("bptt_scalar")
def last_use_only(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "grad": result["contributions"][-1]}


@mistake("bptt_scalar")
def divided_by_reads(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "grad": result["grad"] / len(xs)}


@mistake("bptt_scalar")
def old_state_factor_missing(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "contributions": result["dL_dh"], "grad": sum(result["dL_dh"])}


@mistake("bptt_scalar")
def new_state_instead_of_old(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    contributions = [d * h for d, h in zip(result["dL_dh"], result["states"])]
    return {**result, "contributions": contributions, "grad": sum(contributions)}


@mistake("bptt_scalar")
def grad_overwritten_each_use(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "grad": result["contributions"][0]}  # grad = ... in a loop from T down to 1 keeps step 1's


@mistake("sgd_update")
def update_sign(w, grad, lr):
    return w + lr * grad


@mistake("sgd_update")
def float_where_exact(w, grad, lr):
    return float(w) - float(lr) * float(grad)


@mistake("update_and_recompute")
def stale_states_after_update(xs, w, target, lr):
    states = _scalar_forward(xs, w)
    w_new = w - lr * _bptt_scalar(xs, w, target)["grad"]
    return {"w": w_new, "states": states, "loss": (states[-1] - target) ** 2 / 2}


@mistake("signal_multiplier")
def multiplier_off_by_one_edge(factor, distance):
    return factor ** (distance + 1)


@mistake("signal_multiplier")
def rounded_value(factor, distance):
    return round(float(factor**distance), 4)


@mistake("finite_difference_grad")
def difference_not_halved(f, w, eps=1e-6):
    return (f(w + eps) - f(w - eps)) / eps


@mistake("finite_difference_grad")
def forward_difference(f, w, eps=1e-6):
    return (f(w + eps) - f(w)) / eps


@mistake("finite_difference_grad")
def eps_ignored(f, w, eps=1e-6):
    step = 1e-6
    return (f(w + step) - f(w - step)) / (2 * step)


@mistake("polynomial_grad")
def inner_derivative_missing(w):
    return w * w - 1


@mistake("tanh_local_rate")
def tanh_rate_not_squared(a):
    return 1 - np.tanh(a)


@mistake("rnn_backward")
def recurrent_weight_not_transposed(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, transpose=False)


@mistake("rnn_backward")
def tanh_derivative_missing(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, tanh_rate=False)


@mistake("rnn_backward")
def grads_overwritten_each_step(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, accumulate=False)


@mistake("rnn_backward")
def recurrent_grad_from_new_state(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, old_state=False)


@mistake("clip_by_global_norm")
def clipped_elementwise(grads, max_norm):
    return [np.clip(np.asarray(g, dtype=float), -max_norm, max_norm) for g in grads]


@mistake("clip_by_global_norm")
def per_tensor_clipping(grads, max_norm):
    clipped = []
    for g in grads:
        g = np.asarray(g, dtype=float)
        norm = float(np.sqrt(np.sum(g**2)))
        clipped.append(g * (max_norm / norm) if norm > max_norm else g.copy())
    return clipped


def _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, *, transpose=True, tanh_rate=True, accumulate=True, old_state=True):
    """rnn_backward with one step changed; the defaults give the solution."""
    xs, h0 = np.asarray(xs, dtype=float), np.asarray(h0, dtype=float)
    states = [h0]
    for x in xs:
        states.append(np.tanh(x @ W_x + states[-1] @ W_h + b))
    dW_x, dW_h, db, carry = np.zeros_like(W_x), np.zeros_like(W_h), np.zeros_like(b), np.zeros_like(h0)
    for t in reversed(range(len(xs))):
        delta = (dh_direct[t] + carry) * ((1 - states[t + 1] ** 2) if tanh_rate else 1)
        terms = (np.outer(xs[t], delta), np.outer(states[t] if old_state else states[t + 1], delta), delta)
        dW_x, dW_h, db = [total + term for total, term in zip((dW_x, dW_h, db), terms)] if accumulate else terms
        carry = delta @ (W_h.T if transpose else W_h)
    return {"dW_x": dW_x, "dW_h": dW_h, "db": db, "dh0": carry}

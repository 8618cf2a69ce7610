"""Corpus entries of ch12_bptt (setup cell: np, Fraction, plt)."""
from . import mistake, variant

A = "ch12_bptt"

ENTRIES = [
    # ------------------------------------------------------------------ scalar_forward
    variant(A, "scalar_forward", "forward-accumulate", '''
        from itertools import accumulate

        def scalar_forward(xs, w, h0=0):
            return list(accumulate(xs, lambda h, x: x + w * h, initial=h0))[1:]
    ''', why="itertools.accumulate"),
    variant(A, "scalar_forward", "forward-recursive", '''
        def scalar_forward(xs, w, h0=0):
            if len(xs) == 0:
                return []
            h1 = xs[0] + w * h0
            return [h1] + scalar_forward(xs[1:], w, h1)
    ''', why="recursion on the tail"),
    variant(A, "scalar_forward", "forward-sympy", '''
        import sympy as sp

        def scalar_forward(xs, w, h0=0):
            w, h = sp.Rational(w), sp.Rational(h0)
            states = []
            for x in xs:
                h = sp.Rational(x) + w * h
                states.append(h)
            return states
    ''', why="SymPy Rationals throughout (bptt_scalar and the update then compute in SymPy too)"),
    mistake(A, "scalar_forward", "forward-numpy-floats", '''
        def scalar_forward(xs, w, h0=0):
            states = np.zeros(len(xs))
            h = h0
            for t, x in enumerate(xs):
                h = x + w * h
                states[t] = h
            return list(states)
    ''', "float_where_exact", why="states stored in a float array: the exact values become floats"),

    # ------------------------------------------------------------------ bptt_scalar
    variant(A, "bptt_scalar", "bptt-defaultdict", '''
        from collections import defaultdict

        def bptt_scalar(xs, w, target, h0=0):
            result = defaultdict(list)
            h = h0
            for x in xs:
                h = x + w * h
                result["states"].append(h)
            error = h - target
            result["loss"] = error * error / 2
            back = error
            for _ in xs:
                result["dL_dh"].insert(0, back)
                back = back * w
            olds = [h0] + result["states"][:-1]
            result["contributions"] = [d * o for d, o in zip(result["dL_dh"], olds)]
            result["grad"] = sum(result["contributions"], Fraction(0))
            return result
    ''', why="a defaultdict(list) result, its own forward pass"),
    variant(A, "bptt_scalar", "bptt-forward-sensitivity", '''
        def bptt_scalar(xs, w, target, h0=0):
            states, h, s = [], h0, 0
            for x in xs:
                s = h + w * s  # dh_t/dw along the whole chain (forward mode)
                h = x + w * h
                states.append(h)
            error = h - target
            dL_dh, g = [], error
            for _ in states:
                dL_dh.append(g)
                g *= w
            dL_dh.reverse()
            contributions = [d * p for d, p in zip(dL_dh, [h0] + states[:-1])]
            return dict(states=states, loss=error ** 2 / 2, dL_dh=dL_dh, contributions=contributions, grad=error * s)
    ''', why="the gradient by forward-mode sensitivity, the table by a backward loop"),
    mistake(A, "bptt_scalar", "bptt-no-chain-factor", '''
        def bptt_scalar(xs, w, target, h0=0):
            states = scalar_forward(xs, w, h0)
            error = states[-1] - target
            dL_dh = [error for _ in states]  # the loss reads h_T: each h_t gets the same error
            olds = [h0] + states[:-1]
            contributions = [d * o for d, o in zip(dL_dh, olds)]
            return {"states": states, "loss": error ** 2 / 2, "dL_dh": dL_dh, "contributions": contributions, "grad": sum(contributions)}
    ''', None, why="dL/dh_t not multiplied by w on its way back"),
    mistake(A, "bptt_scalar", "bptt-loss-half-float", '''
        def bptt_scalar(xs, w, target, h0=0):
            states = scalar_forward(xs, w, h0)
            error = states[-1] - target
            dL_dh = [error * w ** k for k in reversed(range(len(states)))]
            contributions = [d * h for d, h in zip(dL_dh, [h0] + states[:-1])]
            return {"states": states, "loss": 0.5 * error ** 2, "dL_dh": dL_dh, "contributions": contributions, "grad": sum(contributions)}
    ''', "float_where_exact", why="the loss written with 0.5, a float where the rest is exact"),
    # ------------------------------------------------------------------ sgd_update, update_and_recompute
    variant(A, "sgd_update", "sgd-sympy", '''
        import sympy

        def sgd_update(w, grad, lr):
            return sympy.Rational(w) - sympy.Rational(lr) * sympy.Rational(grad)
    ''', why="SymPy Rationals (update_and_recompute and 12.7.2 then get SymPy values)"),
    variant(A, "update_and_recompute", "update-inline", '''
        def update_and_recompute(xs, w, target, lr):
            grad = bptt_scalar(xs, w, target)["grad"]
            new_w = w - lr * grad
            h, states = 0, []
            for x in xs:
                h = x + new_w * h
                states.append(h)
            return {"w": new_w, "states": states, "loss": Fraction(1, 2) * (h - target) ** 2}
    ''', why="the update and the forward pass written out"),
    mistake(A, "update_and_recompute", "update-old-loss", '''
        def update_and_recompute(xs, w, target, lr):
            table = bptt_scalar(xs, w, target)
            w_new = sgd_update(w, table["grad"], lr)
            return {"w": w_new, "states": scalar_forward(xs, w_new), "loss": table["loss"]}
    ''', "stale_states_after_update", why="the states recomputed but the loss of the pass before the update reported"),

    # ------------------------------------------------------------------ signal_multiplier
    variant(A, "signal_multiplier", "multiplier-squaring", '''
        def signal_multiplier(factor, distance):
            if distance == 0:
                return Fraction(1)
            half = signal_multiplier(factor, distance // 2)
            return half * half * (factor if distance % 2 else 1)
    ''', why="recursive exponentiation by squaring"),
    mistake(A, "signal_multiplier", "multiplier-counts-states", '''
        def signal_multiplier(factor, distance):
            m = factor
            for _ in range(distance):
                m *= factor
            return m
    ''', "multiplier_off_by_one_edge", why="starts from factor: one multiplication per state, distance + 1 in all"),
    mistake(A, "signal_multiplier", "multiplier-rounded-fraction", '''
        def signal_multiplier(factor, distance):
            return round(factor ** distance, 4)
    ''', "rounded_value", why="rounded to 4 decimals (round of a Fraction stays a Fraction)"),

    # ------------------------------------------------------------------ finite differences, polynomial, tanh rate
    variant(A, "finite_difference_grad", "central-half-over-eps", '''
        def finite_difference_grad(f, w, eps=1e-6):
            return (f(w + eps) - f(w - eps)) * (0.5 / eps)
    ''', why="multiplied by 0.5/eps"),
    mistake(A, "finite_difference_grad", "central-half-steps", '''
        def finite_difference_grad(f, w, eps=1e-6):
            return (f(w + eps / 2) - f(w - eps / 2)) / eps
    ''', None, why="the central difference with half steps (w +- eps/2): not the quotient with the eps given"),
    variant(A, "polynomial_grad", "poly-sympy-diff", '''
        import sympy as sp

        def polynomial_grad(w):
            v = sp.Symbol("w")
            derivative = sp.diff(sp.Rational(1, 2) * (v ** 2 - 1) ** 2, v)
            return derivative.subs(v, sp.Rational(w))
    ''', why="SymPy differentiation, substituted with a Rational"),
    variant(A, "tanh_local_rate", "rate-math-factored", '''
        import math

        def tanh_local_rate(a):
            t = math.tanh(a)
            return (1 - t) * (1 + t)
    ''', why="math.tanh, factored"),
    variant(A, "tanh_local_rate", "rate-sympy", '''
        import sympy as sp

        def tanh_local_rate(a):
            return 1 - sp.tanh(a) ** 2
    ''', why="SymPy's tanh of a float: a SymPy Float (an exact 1 at a = 0)"),
    # ------------------------------------------------------------------ rnn_backward
    variant(A, "rnn_backward", "backward-stored-deltas", '''
        def rnn_backward(xs, h0, W_x, W_h, b, dh_direct):
            xs = np.asarray(xs, dtype=float)
            T = xs.shape[0]
            H = np.empty((T + 1, len(h0)))
            H[0] = h0
            for t in range(T):
                H[t + 1] = np.tanh(xs[t] @ W_x + H[t] @ W_h + b)
            deltas = np.zeros((T, len(h0)))
            upstream = np.zeros(len(h0))
            for t in range(T - 1, -1, -1):
                deltas[t] = (dh_direct[t] + upstream) * (1 - H[t + 1] ** 2)
                upstream = deltas[t] @ W_h.T
            return {"dW_x": xs.T @ deltas, "dW_h": H[:-1].T @ deltas, "db": deltas.sum(axis=0), "dh0": upstream}
    ''', why="all deltas stored, the sums over time as matrix products"),
    mistake(A, "rnn_backward", "backward-rate-on-direct-only", '''
        def rnn_backward(xs, h0, W_x, W_h, b, dh_direct):
            xs, h0 = np.asarray(xs, dtype=float), np.asarray(h0, dtype=float)
            states = [h0]
            for x in xs:
                states.append(np.tanh(x @ W_x + states[-1] @ W_h + b))
            dW_x, dW_h, db = np.zeros_like(W_x, dtype=float), np.zeros_like(W_h, dtype=float), np.zeros_like(b, dtype=float)
            carry = np.zeros_like(h0)
            for t in reversed(range(len(xs))):
                delta = dh_direct[t] * (1 - states[t + 1] ** 2) + carry  # the tanh rate on the direct part only
                dW_x += np.outer(xs[t], delta)
                dW_h += np.outer(states[t], delta)
                db += delta
                carry = delta @ W_h.T
            return {"dW_x": dW_x, "dW_h": dW_h, "db": db, "dh0": carry}
    ''', None, why="the tanh rate applied to the direct gradient only, not to what flows back from t+1"),

    # ------------------------------------------------------------------ clip_by_global_norm
    variant(A, "clip_by_global_norm", "clip-concat-tuple", '''
        def clip_by_global_norm(grads, max_norm):
            flat = np.concatenate([np.ravel(np.asarray(g, dtype=float)) for g in grads])
            norm = np.linalg.norm(flat)
            factor = min(1.0, max_norm / norm) if norm > 0 else 1.0
            return tuple(np.asarray(g, dtype=float) * factor for g in grads)
    ''', why="np.linalg.norm of everything flattened, a tuple of copies"),
    mistake(A, "clip_by_global_norm", "clip-always-rescale", '''
        def clip_by_global_norm(grads, max_norm):
            norm = np.sqrt(sum(np.sum(np.square(np.asarray(g, dtype=float))) for g in grads))
            return [np.asarray(g, dtype=float) * (max_norm / norm) for g in grads]
    ''', None, why="always rescaled to max_norm, also when the norm is already below it"),

    # ------------------------------------------------------------------ exercises
    variant(A, "ex_12_7_1", "ex1-sympy", '''
        import sympy as sp

        def ex_12_7_1(rate, factor, distance):
            return sp.Rational(rate) * sp.Rational(factor) ** distance
    ''', why="SymPy Rationals"),
    variant(A, "ex_12_7_1", "ex1-loop-over-edges", '''
        def ex_12_7_1(rate, factor, distance):
            for _ in range(distance):  # one multiplication per edge
                rate = rate * factor
            return rate
    ''', why="a loop, one multiplication per edge"),
    mistake(A, "ex_12_7_1", "ex1-one-per-state", '''
        def ex_12_7_1(rate, factor, distance):
            states = distance + 1  # the earlier state, the later one and those between
            return rate * factor**states
    ''', None, why="one factor per state on the path, not per edge, in the exercise itself (its signal_multiplier is "
               "right, so multiplier_off_by_one_edge, whose output this is, must not be named)"),
    mistake(A, "ex_12_7_1", "ex1-book-answer-typed-in", '''
        def ex_12_7_1(rate, factor, distance):
            return Fraction(1, 8) if factor < 1 else Fraction(81, 8)
    ''', None, hidden_only=True, why="the book's two answers typed in: the self-check passes, the other numbers of the grade do not"),
    variant(A, "ex_12_7_2", "ex2-all-but-last", '''
        def ex_12_7_2(xs, w, target, lr):
            table = bptt_scalar(xs, w, target)
            missing = sum(table["contributions"]) - table["contributions"][-1]
            return {"missing contribution": missing, "w_new": w - lr * table["grad"]}
    ''', why="the missing part as everything but the last use"),
]

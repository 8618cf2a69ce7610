"""Corpus entries of ch12_bptt (setup cell: np, Fraction, plt)."""

from . import mistake, variant

A = "ch12_bptt"

ENTRIES = [
    # ------------------------------------------------------------------ scalar_forward
    variant(
        A,
        "scalar_forward",
        "forward-accumulate",
        """
        from itertools import accumulate

        def scalar_forward(xs, w, h0=0):
            return list(accumulate(xs, lambda h, x: x + w * h, initial=h0))[1:]
    """,
        why="itertools.accumulate",
    ),
    variant(
        A,
        "scalar_forward",
        "forward-recursive",
        """
        def scalar_forward(xs, w, h0=0):
            if len(xs) == 0:
                return []
            h1 = xs[0] + w * h0
            return [h1] + scalar_forward(xs[1:], w, h1)
    """,
        why="recursion on the tail",
    ),
    variant(
        A,
        "scalar_forward",
        "forward-sympy",
        """
        import sympy as sp

        def scalar_forward(xs, w, h0=0):
            w, h = sp.Rational(w), sp.Rational(h0)
            states = []
            for x in xs:
                h = sp.Rational(x) + w * h
                states.append(h)
            return states
    """,
        why="SymPy Rationals throughout (bptt_scalar and the update then compute in SymPy too)",
    ),
    mistake(
        A,
        "scalar_forward",
        "forward-numpy-floats",
        """
        def scalar_forward(xs, w, h0=0):
            states = np.zeros(len(xs))
            h = h0
            for t, x in enumerate(xs):
                h = x + w * h
                states[t] = h
            return list(states)
    """,
        "float_where_exact",
        why="states stored in a float array: the exact values become floats",
    ),
    # ------------------------------------------------------------------ bptt_scalar
    variant(
        A,
        "bptt_scalar",
        "bptt-defaultdict",
        """
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
    """,
        why="a defaultdict(list) result, its own forward pass",
    ),
    variant(
        A,
        "bptt_scalar",
        "bptt-forward-sensitivity",
        """
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
    """,
        why="the gradient by forward-mode sensitivity, the table by a backward loop",
    ),
    mistake(
        A,
        "bptt_scalar",
        "bptt-no-chain-factor",
        """
        def bptt_scalar(xs, w, target, h0=0):
            states = scalar_forward(xs, w, h0)
            error = states[-1] - target
            dL_dh = [error for _ in states]  # the loss reads h_T: each h_t gets the same error
            olds = [h0] + states[:-1]
            contributions = [d * o for d, o in zip(dL_dh, olds)]
            return {"states": states, "loss": error ** 2 / 2, "dL_dh": dL_dh, "contributions": contributions, "grad": sum(contributions)}
    """,
        None,
        why="dL/dh_t not multiplied by w on its way back",
    ),
    mistake(
        A,
        "bptt_scalar",
        "bptt-loss-half-float",
        """
        def bptt_scalar(xs, w, target, h0=0):
            states = scalar_forward(xs, w, h0)
            error = states[-1] - target
            dL_dh = [error * w ** k for k in reversed(range(len(states)))]
            contributions = [d * h for d, h in zip(dL_dh, [h0] + states[:-1])]
            return {"states": states, "loss": 0.5 * error ** 2, "dL_dh": dL_dh, "contributions": contributions, "grad": sum(contributions)}
    """,
        "float_where_exact",
        why="the loss written with 0.5, a float where the rest is exact",
    ),
    # ------------------------------------------------------------------ sgd_update, update_and_recompute
    variant(
        A,
        "sgd_update",
        "sgd-sympy",
        """
        import sympy

        def sgd_update(w, grad, lr):
            return sympy.Rational(w) - sympy.Rational(lr) * sympy.Rational(grad)
    """,
        why="SymPy Rationals (update_and_recompute and 12.7.2 then get SymPy values)",
    ),
    variant(
        A,
        "update_and_recompute",
        "update-inline",
        """
        def update_and_recompute(xs, w, target, lr):
            grad = bptt_scalar(xs, w, target)["grad"]
            new_w = w - lr * grad
            h, states = 0, []
            for x in xs:
                h = x + new_w * h
                states.append(h)
            return {"w": new_w, "states": states, "loss": Fraction(1, 2) * (h - target) ** 2}
    """,
        why="the update and the forward pass written out",
    ),
    mistake(
        A,
        "update_and_recompute",
        "update-old-loss",
        """
        def update_and_recompute(xs, w, target, lr):
            table = bptt_scalar(xs, w, target)
            w_new = sgd_update(w, table["grad"], lr)
            return {"w": w_new, "states": scalar_forward(xs, w_new), "loss": table["loss"]}
    """,
        "stale_states_after_update",
        why="the states recomputed but the loss of the pass before the update reported",
    ),
    # ------------------------------------------------------------------ signal_multiplier
    variant(
        A,
        "signal_multiplier",
        "multiplier-squaring",
        """
        def signal_multiplier(factor, distance):
            if distance == 0:
                return Fraction(1)
            half = signal_multiplier(factor, distance // 2)
            return half * half * (factor if distance % 2 else 1)
    """,
        why="recursive exponentiation by squaring",
    ),
    mistake(
        A,
        "signal_multiplier",
        "multiplier-counts-states",
        """
        def signal_multiplier(factor, distance):
            m = factor
            for _ in range(distance):
                m *= factor
            return m
    """,
        "multiplier_off_by_one_edge",
        why="starts from factor: one multiplication per state, distance + 1 in all",
    ),
    mistake(
        A,
        "signal_multiplier",
        "multiplier-rounded-fraction",
        """
        def signal_multiplier(factor, distance):
            return round(factor ** distance, 4)
    """,
        "rounded_value",
        why="rounded to 4 decimals (round of a Fraction stays a Fraction)",
    ),
    # ------------------------------------------------------------------ finite differences, polynomial, tanh rate
    variant(
        A,
        "finite_difference_grad",
        "central-half-over-eps",
        """
        def finite_difference_grad(f, w, eps=1e-6):
            return (f(w + eps) - f(w - eps)) * (0.5 / eps)
    """,
        why="multiplied by 0.5/eps",
    ),
    mistake(
        A,
        "finite_difference_grad",
        "central-half-steps",
        """
        def finite_difference_grad(f, w, eps=1e-6):
            return (f(w + eps / 2) - f(w - eps / 2)) / eps
    """,
        None,
        why="the central difference with half steps (w +- eps/2): not the quotient with the eps given",
    ),
    variant(
        A,
        "polynomial_grad",
        "poly-sympy-diff",
        """
        import sympy as sp

        def polynomial_grad(w):
            v = sp.Symbol("w")
            derivative = sp.diff(sp.Rational(1, 2) * (v ** 2 - 1) ** 2, v)
            return derivative.subs(v, sp.Rational(w))
    """,
        why="SymPy differentiation, substituted with a Rational",
    ),
    variant(
        A,
        "tanh_local_rate",
        "rate-math-factored",
        """
        import math

        def tanh_local_rate(a):
            t = math.tanh(a)
            return (1 - t) * (1 + t)
    """,
        why="math.tanh, factored",
    ),
    variant(
        A,
        "tanh_local_rate",
        "rate-sympy",
        """
        import sympy as sp

        def tanh_local_rate(a):
            return 1 - sp.tanh(a) ** 2
    """,
        why="SymPy's tanh of a float: a SymPy Float (an exact 1 at a = 0)",
    ),
    # ------------------------------------------------------------------ rnn_backward
    variant(
        A,
        "rnn_backward",
        "backward-stored-deltas",
        """
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
    """,
        why="all deltas stored, the sums over time as matrix products",
    ),
    mistake(
        A,
        "rnn_backward",
        "backward-rate-on-direct-only",
        """
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
    """,
        None,
        why="the tanh rate applied to the direct gradient only, not to what flows back from t+1",
    ),
    # ------------------------------------------------------------------ clip_by_global_norm
    variant(
        A,
        "clip_by_global_norm",
        "clip-concat-tuple",
        """
        def clip_by_global_norm(grads, max_norm):
            flat = np.concatenate([np.ravel(np.asarray(g, dtype=float)) for g in grads])
            norm = np.linalg.norm(flat)
            factor = min(1.0, max_norm / norm) if norm > 0 else 1.0
            return tuple(np.asarray(g, dtype=float) * factor for g in grads)
    """,
        why="np.linalg.norm of everything flattened, a tuple of copies",
    ),
    mistake(
        A,
        "clip_by_global_norm",
        "clip-always-rescale",
        """
        def clip_by_global_norm(grads, max_norm):
            norm = np.sqrt(sum(np.sum(np.square(np.asarray(g, dtype=float))) for g in grads))
            return [np.asarray(g, dtype=float) * (max_norm / norm) for g in grads]
    """,
        None,
        why="always rescaled to max_norm, also when the norm is already below it",
    ),
    # ------------------------------------------------------------------ exercises
    variant(
        A,
        "ex_12_7_1",
        "ex1-sympy",
        """
        import sympy as sp

        def ex_12_7_1(rate, factor, distance):
            return sp.Rational(rate) * sp.Rational(factor) ** distance
    """,
        why="SymPy Rationals",
    ),
    variant(
        A,
        "ex_12_7_1",
        "ex1-loop-over-edges",
        """
        def ex_12_7_1(rate, factor, distance):
            for _ in range(distance):  # one multiplication per edge
                rate = rate * factor
            return rate
    """,
        why="a loop, one multiplication per edge",
    ),
    mistake(
        A,
        "ex_12_7_1",
        "ex1-one-per-state",
        """
        def ex_12_7_1(rate, factor, distance):
            states = distance + 1  # the earlier state, the later one and those between
            return rate * factor**states
    """,
        None,
        why="one factor per state on the path, not per edge, in the exercise itself (its signal_multiplier is "
        "right, so multiplier_off_by_one_edge, whose output this is, must not be named)",
    ),
    mistake(
        A,
        "ex_12_7_1",
        "ex1-book-answer-typed-in",
        """
        def ex_12_7_1(rate, factor, distance):
            return Fraction(1, 8) if factor < 1 else Fraction(81, 8)
    """,
        None,
        why="the book's two answers typed in: the self-check's case of another size fails it, as the grade's numbers do",
    ),
    variant(
        A,
        "ex_12_7_2",
        "ex2-all-but-last",
        """
        def ex_12_7_2(xs, w, target, lr):
            table = bptt_scalar(xs, w, target)
            missing = sum(table["contributions"]) - table["contributions"][-1]
            return {"missing contribution": missing, "w_new": w - lr * table["grad"]}
    """,
        why="the missing part as everything but the last use",
    ),
    # ------------------------------------------------------------------ round three: more styles, the classics
    variant(
        A,
        "bptt_scalar",
        "bptt-recursive-rates",
        """
        def bptt_scalar(xs, w, target, h0=0):
            states = scalar_forward(xs, w, h0)
            error = states[-1] - target

            def rate(t):  # dL/dh_t, 0-based, by recursion on the edges to the end
                return error if t == len(states) - 1 else rate(t + 1) * w

            dL_dh = [rate(t) for t in range(len(states))]
            olds = [h0] + states[:-1]
            contributions = [dL_dh[t] * olds[t] for t in range(len(states))]
            total = 0
            for c in contributions:
                total = total + c
            return {"states": states, "loss": error * error / 2, "dL_dh": dL_dh, "contributions": contributions, "grad": total}
    """,
        why="dL/dh_t by a recursive helper, the sum by hand",
    ),
    mistake(
        A,
        "bptt_scalar",
        "bptt-contributions-default-list",
        """
        def bptt_scalar(xs, w, target, h0=0, contributions=[]):
            states = scalar_forward(xs, w, h0)
            error = states[-1] - target
            dL_dh = [error * w ** (len(states) - 1 - t) for t in range(len(states))]
            for d, old in zip(dL_dh, [h0] + states[:-1]):
                contributions.append(d * old)
            return {"states": states, "loss": error ** 2 / 2, "dL_dh": dL_dh, "contributions": contributions, "grad": sum(contributions)}
    """,
        "contributions_kept_between_calls",
        why="the contributions appended to a mutable default list, never emptied between calls",
    ),
    mistake(
        A,
        "bptt_scalar",
        "bptt-global-total",
        """
        RUNNING = {"grad": 0}

        def bptt_scalar(xs, w, target, h0=0):
            states = scalar_forward(xs, w, h0)
            error = states[-1] - target
            dL_dh = [error * w ** (len(states) - 1 - t) for t in range(len(states))]
            contributions = [d * old for d, old in zip(dL_dh, [h0] + states[:-1])]
            for c in contributions:
                RUNNING["grad"] += c
            return {"states": states, "loss": error ** 2 / 2, "dL_dh": dL_dh, "contributions": contributions, "grad": RUNNING["grad"]}
    """,
        "contributions_kept_between_calls",
        why="the gradient summed into a global total that no call resets (its values depend on every earlier call)",
    ),
    variant(
        A,
        "rnn_backward",
        "backward-outer-comprehension",
        """
        def rnn_backward(xs, h0, W_x, W_h, b, dh_direct):
            xs = np.array(xs, dtype=float)
            hs = [np.array(h0, dtype=float)]
            for x_t in xs:
                hs.append(np.tanh(x_t @ W_x + hs[-1] @ W_h + b))
            deltas, back = [None] * len(xs), np.zeros(len(hs[0]))
            for t in range(len(xs) - 1, -1, -1):
                deltas[t] = (np.asarray(dh_direct[t], dtype=float) + back) * (1 - hs[t + 1] ** 2)
                back = W_h @ deltas[t]
            return {"dW_x": sum(np.outer(xs[t], deltas[t]) for t in range(len(xs))),
                    "dW_h": sum(np.outer(hs[t], deltas[t]) for t in range(len(xs))),
                    "db": np.sum(deltas, axis=0), "dh0": back}
    """,
        why="deltas first, then sums of np.outer; the carry as W_h @ delta",
    ),
    variant(
        A,
        "rnn_backward",
        "backward-einsum",
        """
        def rnn_backward(xs, h0, W_x, W_h, b, dh_direct):
            X = np.asarray(xs, dtype=np.float64)
            T, H = X.shape[0], len(h0)
            S = np.zeros((T + 1, H))
            S[0] = h0
            for t in range(T):
                S[t + 1] = np.tanh(np.einsum("d,dh->h", X[t], W_x) + np.einsum("k,kh->h", S[t], W_h) + b)
            D = np.zeros((T, H))
            g = np.zeros(H)
            for t in reversed(range(T)):
                D[t] = (dh_direct[t] + g) * (1.0 - S[t + 1] * S[t + 1])
                g = np.einsum("h,kh->k", D[t], W_h)
            return dict(dW_x=np.einsum("td,th->dh", X, D), dW_h=np.einsum("tk,th->kh", S[:-1], D), db=D.sum(0), dh0=g)
    """,
        why="einsum for the forward pass, the carry and the sums over time",
    ),
    variant(
        A,
        "rnn_backward",
        "backward-fractions",
        """
        import math

        def rnn_backward(xs, h0, W_x, W_h, b, dh_direct):
            F = np.vectorize(lambda v: Fraction(float(v)), otypes=[object])
            X, Wx, Wh, bb, direct = F(np.atleast_2d(xs)), F(W_x), F(W_h), F(b), F(np.atleast_2d(dh_direct))
            hs = [F(h0)]
            for x in X:
                a = x.dot(Wx) + hs[-1].dot(Wh) + bb
                hs.append(np.array([Fraction(math.tanh(v)) for v in a], dtype=object))
            dWx, dWh, db = np.zeros(Wx.shape, dtype=object), np.zeros(Wh.shape, dtype=object), np.zeros(bb.shape, dtype=object)
            carry = np.zeros(len(hs[0]), dtype=object)
            for t in reversed(range(len(X))):
                delta = (direct[t] + carry) * (1 - hs[t + 1] * hs[t + 1])
                dWx, dWh, db = dWx + np.outer(X[t], delta), dWh + np.outer(hs[t], delta), db + delta
                carry = Wh.dot(delta)
            as_float = lambda m: np.array(m, dtype=float)
            return {"dW_x": as_float(dWx), "dW_h": as_float(dWh), "db": as_float(db), "dh0": as_float(carry)}
    """,
        why="the weights as Fraction object arrays, tanh through math.tanh, floats out",
    ),
    mistake(
        A,
        "rnn_backward",
        "backward-grads-default-dict",
        """
        def rnn_backward(xs, h0, W_x, W_h, b, dh_direct, cache={}):
            xs = np.asarray(xs, dtype=float)
            hs = [np.asarray(h0, dtype=float)]
            for x in xs:
                hs.append(np.tanh(x @ W_x + hs[-1] @ W_h + b))
            dW_x = cache.setdefault("dW_x", np.zeros(np.shape(W_x)))
            dW_h = cache.setdefault("dW_h", np.zeros(np.shape(W_h)))
            db = cache.setdefault("db", np.zeros(np.shape(b)))
            nxt = np.zeros_like(hs[0])
            for t in range(len(xs) - 1, -1, -1):
                delta = (dh_direct[t] + nxt) * (1 - hs[t + 1] ** 2)
                dW_x += np.outer(xs[t], delta)
                dW_h += np.outer(hs[t], delta)
                db += delta
                nxt = delta @ W_h.T
            return {"dW_x": dW_x.copy(), "dW_h": dW_h.copy(), "db": db.copy(), "dh0": nxt}
    """,
        "gradients_kept_between_calls",
        why="the gradient accumulators kept in a mutable default dict, never reset between calls",
    ),
    mistake(
        A,
        "rnn_backward",
        "backward-column-habit",
        """
        def rnn_backward(xs, h0, W_x, W_h, b, dh_direct):
            xs = np.asarray(xs, dtype=float)
            hs = [np.asarray(h0, dtype=float)]
            for x in xs:
                hs.append(np.tanh(x @ W_x + hs[-1] @ W_h + b))
            dW_x, dW_h, db = np.zeros(W_x.T.shape), np.zeros(W_h.shape), np.zeros(len(b))
            carry = np.zeros(len(hs[0]))
            for t in reversed(range(len(xs))):
                delta = (dh_direct[t] + carry) * (1 - hs[t + 1] ** 2)
                dW_x += np.outer(delta, xs[t])  # dW = delta x^T, as with column vectors
                dW_h += np.outer(delta, hs[t])
                db += delta
                carry = W_h @ delta
            return {"dW_x": dW_x, "dW_h": dW_h, "db": db, "dh0": carry}
    """,
        "weight_grads_transposed",
        why="the weight gradients written delta x^T, the column-vector habit of the second text",
    ),
    mistake(
        A,
        "rnn_backward",
        "backward-totals-in-a-closure",
        """
        def _running_totals():
            totals = {}

            def add(name, value):
                totals[name] = totals.get(name, 0) + value
                return np.array(totals[name], dtype=float)

            return add


        _add = _running_totals()


        def rnn_backward(xs, h0, W_x, W_h, b, dh_direct):
            xs = np.asarray(xs, dtype=float)
            hs = [np.asarray(h0, dtype=float)]
            for x in xs:
                hs.append(np.tanh(x @ W_x + hs[-1] @ W_h + b))
            dW_x, dW_h, db = np.zeros_like(W_x, dtype=float), np.zeros_like(W_h, dtype=float), np.zeros_like(b, dtype=float)
            carry = np.zeros(len(hs[0]))
            for t in reversed(range(len(xs))):
                delta = (dh_direct[t] + carry) * (1 - hs[t + 1] ** 2)
                dW_x += np.outer(xs[t], delta)
                dW_h += np.outer(hs[t], delta)
                db += delta
                carry = delta @ W_h.T
            return {"dW_x": _add("dW_x", dW_x), "dW_h": _add("dW_h", dW_h), "db": _add("db", db), "dh0": carry}
    """,
        "gradients_kept_between_calls",
        why="the weight gradients summed into totals a closure keeps from one call to the next",
    ),
    mistake(
        A,
        "rnn_backward",
        "backward-dWh-only-transposed",
        """
        def rnn_backward(xs, h0, W_x, W_h, b, dh_direct):
            xs = np.asarray(xs, dtype=float)
            hs = [np.asarray(h0, dtype=float)]
            for x in xs:
                hs.append(np.tanh(x @ W_x + hs[-1] @ W_h + b))
            dW_x, dW_h, db = np.zeros_like(W_x, dtype=float), np.zeros_like(W_h, dtype=float), np.zeros_like(b, dtype=float)
            carry = np.zeros(len(hs[0]))
            for t in reversed(range(len(xs))):
                delta = (dh_direct[t] + carry) * (1 - hs[t + 1] ** 2)
                dW_x += np.outer(xs[t], delta)
                dW_h += np.outer(delta, hs[t])  # square, so the shape cannot tell
                db += delta
                carry = delta @ W_h.T
            return {"dW_x": dW_x, "dW_h": dW_h, "db": db, "dh0": carry}
    """,
        "weight_grads_transposed",
        why="only dW_h transposed (its shape is square): the column-vector habit in one of the two weight gradients",
    ),
    mistake(
        A,
        "rnn_backward",
        "backward-float32",
        """
        def rnn_backward(xs, h0, W_x, W_h, b, dh_direct):
            f32 = np.float32
            xs, W_x, W_h, b = (np.asarray(v, dtype=f32) for v in (xs, W_x, W_h, b))
            hs = [np.asarray(h0, dtype=f32)]
            for x in xs:
                hs.append(np.tanh(x @ W_x + hs[-1] @ W_h + b))
            dW_x, dW_h, db, carry = np.zeros_like(W_x), np.zeros_like(W_h), np.zeros_like(b), np.zeros_like(hs[0])
            for t in reversed(range(len(xs))):
                delta = (np.asarray(dh_direct[t], dtype=f32) + carry) * (1 - hs[t + 1] ** 2)
                dW_x += np.outer(xs[t], delta)
                dW_h += np.outer(hs[t], delta)
                db += delta
                carry = delta @ W_h.T
            return {"dW_x": dW_x, "dW_h": dW_h, "db": db, "dh0": carry}
    """,
        "float32_precision",
        why="everything in float32, as a GPU framework's default: off in the eighth digit, against float64's tolerance",
    ),
    mistake(
        A,
        "rnn_backward",
        "backward-adds-into-dh-direct",
        """
        def rnn_backward(xs, h0, W_x, W_h, b, dh_direct):
            xs = np.asarray(xs, dtype=float)
            hs = [np.asarray(h0, dtype=float)]
            for x in xs:
                hs.append(np.tanh(x @ W_x + hs[-1] @ W_h + b))
            dW_x, dW_h, db = np.zeros_like(W_x, dtype=float), np.zeros_like(W_h, dtype=float), np.zeros_like(b, dtype=float)
            delta = np.zeros(len(hs[0]))
            for t in reversed(range(len(xs))):
                if t + 1 < len(xs):
                    dh_direct[t] += delta @ W_h.T  # the future's share added into the caller's array
                delta = dh_direct[t] * (1 - hs[t + 1] ** 2)
                dW_x += np.outer(xs[t], delta)
                dW_h += np.outer(hs[t], delta)
                db += delta
            return {"dW_x": dW_x, "dW_h": dW_h, "db": db, "dh0": delta @ W_h.T}
    """,
        None,
        why="the values are right, but dh_direct is changed in place: the caller's array is not left as it was",
    ),
    variant(
        A,
        "finite_difference_grad",
        "central-fraction-eps",
        """
        def finite_difference_grad(f, w, eps=1e-6):
            step, at = Fraction(eps), Fraction(w)
            return (f(at + step) - f(at - step)) / (2 * step)
    """,
        why="w and eps taken as the exact Fractions their floats hold",
    ),
    mistake(
        A,
        "finite_difference_grad",
        "forward-quotient",
        """
        def finite_difference_grad(f, w, eps=1e-6):
            base = f(w)
            return (f(w + eps) - base) / eps
    """,
        "forward_difference",
        why="a one-sided (forward) difference quotient",
    ),
    mistake(
        A,
        "finite_difference_grad",
        "backward-quotient",
        """
        def finite_difference_grad(f, w, eps=1e-6):
            return (f(w) - f(w - eps)) * (1 / eps)
    """,
        "backward_difference",
        why="a one-sided difference looking back",
    ),
    mistake(
        A,
        "finite_difference_grad",
        "step-scaled-by-w",
        """
        def finite_difference_grad(f, w, eps=1e-6):
            step = eps * max(1.0, abs(w))  # a relative step, as numerical libraries take it
            return (f(w + step) - f(w - step)) / (2 * step)
    """,
        None,
        why="a step that grows with |w|: the quotient with another step than the eps given, wherever |w| > 1",
    ),
    variant(
        A,
        "clip_by_global_norm",
        "clip-hstack-linalg",
        """
        def clip_by_global_norm(grads, max_norm):
            everything = np.hstack([np.asarray(g, dtype=float).ravel() for g in grads])
            total = float(np.linalg.norm(everything))
            out = []
            for g in grads:
                copy = np.array(g, dtype=float)
                if total > max_norm:
                    copy *= max_norm / total
                out.append(copy)
            return out
    """,
        why="np.linalg.norm over one concatenated vector, scaled copies made first",
    ),
    mistake(
        A,
        "clip_by_global_norm",
        "clip-scales-callers-arrays",
        """
        def clip_by_global_norm(grads, max_norm):
            norm = np.sqrt(sum(float((np.asarray(g, dtype=float) ** 2).sum()) for g in grads))
            if norm > max_norm:
                for g in grads:
                    if g.dtype.kind == "f":
                        g *= max_norm / norm  # in place: the caller's arrays change
                    else:
                        g[...] = np.round(g * (max_norm / norm))
            return [np.array(g, dtype=float) for g in grads]
    """,
        None,
        why="the caller's arrays scaled in place before copies are returned",
    ),
    mistake(
        A,
        "ex_12_7_2",
        "ex2-second-read-literally",
        """
        def ex_12_7_2(xs, w, target, lr):
            table = bptt_scalar(xs, w, target)
            # 12.8: "the second read also contributes -0.375"
            return {"missing contribution": table["contributions"][1], "w_new": sgd_update(w, table["grad"], lr)}
    """,
        "second_read_only",
        why="12.8's answer taken literally: the second read's contribution, whatever the length",
    ),
    mistake(
        A,
        "ex_12_7_2",
        "ex2-update-with-last-read",
        """
        def ex_12_7_2(xs, w, target, lr):
            table = bptt_scalar(xs, w, target)
            missing = sum(table["contributions"][:-1])
            return {"missing contribution": missing, "w_new": sgd_update(w, table["grad"] - missing, lr)}
    """,
        "update_with_last_use_only",
        why="the update taken with the program's partial gradient, the full one less the missing part",
    ),
    mistake(
        A,
        "ex_12_7_2",
        "ex2-read-before-last",
        """
        def ex_12_7_2(xs, w, target, lr):
            table = bptt_scalar(xs, w, target)
            return {"missing contribution": table["contributions"][-2], "w_new": w - lr * table["grad"]}
    """,
        None,
        why="only the read just before the last counted as missing",
    ),
]

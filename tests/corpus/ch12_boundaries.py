"""Corpus entries of ch12_boundaries (setup cell: np, Fraction, plt, tanh_step, random_step)."""

from . import mistake, variant

A = "ch12_boundaries"

ENTRIES = [
    # ------------------------------------------------------------------ run_independent
    variant(
        A,
        "run_independent",
        "independent-recursive",
        """
        def run_independent(step, sequences, h0):
            def states(xs, h):
                if len(xs) == 0:
                    return []
                h = step(np.asarray(xs[0], dtype=float), h)
                return [h] + states(xs[1:], h)

            h0 = np.asarray(h0, dtype=float)
            return [np.array(states(list(xs), h0)).reshape(len(xs), -1) for xs in sequences]
    """,
        why="a recursive helper inside, one call per sequence",
    ),
    variant(
        A,
        "run_independent",
        "independent-generator",
        """
        def _states(step, xs, h):
            for x in xs:
                h = step(np.asarray(x, dtype=float), h)
                yield h


        def run_independent(step, sequences, h0):
            h0 = np.asarray(h0, dtype=float)
            return [np.array(list(_states(step, xs, h0))).reshape(len(xs), -1) for xs in sequences]
    """,
        why="a generator helper in the same cell, a list comprehension",
    ),
    mistake(
        A,
        "run_independent",
        "independent-shared-state",
        """
        def run_independent(step, sequences, h0):
            h = np.asarray(h0, dtype=float)
            out = []
            for xs in sequences:
                states = []
                for x in np.asarray(xs, dtype=float):
                    h = step(x, h)
                    states.append(h)
                out.append(np.array(states).reshape(len(states), -1))
            return out
    """,
        "state_carried_across_sequences",
        why="h set from h0 once, before the loop over sequences",
    ),
    # ------------------------------------------------------------------ run_stream
    variant(
        A,
        "run_stream",
        "stream-concat-split",
        """
        def run_stream(step, segments, h0):
            lengths = [len(s) for s in segments]
            xs = np.concatenate([np.asarray(s, dtype=float) for s in segments])
            h, states = np.asarray(h0, dtype=float), []
            for x in xs:
                h = step(x, h)
                states.append(h)
            states = np.array(states).reshape(len(xs), -1)
            return np.split(states, np.cumsum(lengths)[:-1])
    """,
        why="the segments joined, run once and split back with np.split",
    ),
    variant(
        A,
        "run_stream",
        "stream-nested-lists",
        """
        def run_stream(step, segments, h0):
            h = np.asarray(h0, dtype=float)
            result = []
            for segment in segments:
                rows = []
                for x in segment:
                    h = step(np.asarray(x, dtype=float), h)
                    rows.append(h.tolist())
                result.append(rows)
            return result
    """,
        why="nested Python lists of floats",
    ),
    mistake(
        A,
        "run_stream",
        "stream-as-independent",
        """
        def run_stream(step, segments, h0):
            return run_independent(step, segments, h0)
    """,
        "state_reset_inside_stream",
        why="the segments treated as independent sequences",
    ),
    # ------------------------------------------------------------------ run_entities
    variant(
        A,
        "run_entities",
        "entities-groupby",
        """
        from itertools import groupby

        def run_entities(step, stream, h0):
            h0 = np.asarray(h0, dtype=float)
            rows = []
            for _, run in groupby(stream, key=lambda pair: pair[0]):
                h = h0
                for _, x in run:
                    h = step(np.asarray(x, dtype=float), h)
                    rows.append(h)
            return np.vstack(rows)
    """,
        why="itertools.groupby over runs of one entity",
    ),
    variant(
        A,
        "run_entities",
        "entities-look-back",
        """
        def run_entities(step, stream, h0):
            out = np.zeros((len(stream), np.size(h0)))
            h = None
            for t, (entity, x) in enumerate(stream):
                if t == 0 or stream[t - 1][0] != entity:
                    h = np.asarray(h0, dtype=float)
                h = step(np.asarray(x, dtype=float), h)
                out[t] = h
            return out
    """,
        why="compares with the previous pair, fills a preallocated array",
    ),
    mistake(
        A,
        "run_entities",
        "entities-memory-per-id",
        """
        def run_entities(step, stream, h0):
            memory = {}
            rows = []
            for entity, x in stream:
                h = memory.get(entity, np.asarray(h0, dtype=float))
                h = step(np.asarray(x, dtype=float), h)
                memory[entity] = h
                rows.append(h)
            return np.array(rows).reshape(len(rows), -1)
    """,
        "entity_state_resumed",
        why="a state kept per entity id, resumed when the entity comes back",
    ),
    # ------------------------------------------------------------------ truncated_bptt_scalar
    mistake(
        A,
        "truncated_bptt_scalar",
        "truncated-grad-on-the-function",
        """
        def truncated_bptt_scalar(xs, w, targets, k, h0=0):
            states, loss, h = [], 0, h0
            sensitivity = 0
            if not hasattr(truncated_bptt_scalar, "grad"):
                truncated_bptt_scalar.grad = 0
            for t, x in enumerate(xs, start=1):
                if (t - 1) % k == 0:
                    sensitivity = 0
                sensitivity = h + w * sensitivity
                h = x + w * h
                states.append(h)
                if t in targets:
                    loss += (h - targets[t]) ** 2 / 2
                    truncated_bptt_scalar.grad += (h - targets[t]) * sensitivity
            return {"states": states, "loss": loss, "grad": truncated_bptt_scalar.grad}
    """,
        "gradient_kept_between_calls",
        why="the gradient summed into an attribute of the function, never reset between calls",
    ),
    variant(
        A,
        "truncated_bptt_scalar",
        "truncated-forward-sensitivity",
        """
        def truncated_bptt_scalar(xs, w, targets, k, h0=0):
            states, loss, grad = [], 0, 0
            h, s = h0, 0
            for t, x in enumerate(xs, start=1):
                if (t - 1) % k == 0:
                    s = 0  # the carried state is a constant in this segment: no dependence on w
                s = h + w * s  # d h_t / d w within the segment
                h = x + w * h
                states.append(h)
                if t in targets:
                    error = h - targets[t]
                    loss += error * error / 2
                    grad += error * s
            return {"states": states, "loss": loss, "grad": grad}
    """,
        why="forward-mode sensitivity reset at every segment start",
    ),
    variant(
        A,
        "truncated_bptt_scalar",
        "truncated-sympy",
        """
        import sympy as sp

        def truncated_bptt_scalar(xs, w, targets, k, h0=0):
            w, h = sp.Rational(w), sp.Rational(h0)
            states = []
            for x in xs:
                h = sp.Rational(x) + w * h
                states.append(h)
            y = {int(t): sp.Rational(v) for t, v in targets.items()}
            loss = sum(((states[t - 1] - v) ** 2 / 2 for t, v in y.items()), sp.Integer(0))
            grad = sp.Integer(0)
            for start in range(0, len(xs), k):
                upstream = sp.Integer(0)
                for t in range(min(start + k, len(xs)) - 1, start - 1, -1):
                    local = upstream + (states[t] - y[t + 1] if (t + 1) in y else 0)
                    grad += local * (states[t - 1] if t > 0 else sp.Rational(h0))
                    upstream = local * w
            return {"states": states, "loss": loss, "grad": grad}
    """,
        why="SymPy Rationals, a backward loop per segment",
    ),
    mistake(
        A,
        "truncated_bptt_scalar",
        "truncated-zero-carried-input",
        """
        def truncated_bptt_scalar(xs, w, targets, k, h0=0):
            states, h = [], h0
            for x in xs:
                h = x + w * h
                states.append(h)
            loss = sum((states[t - 1] - y) ** 2 / 2 for t, y in targets.items())
            grad = 0
            for start in range(0, len(xs), k):
                carry = 0
                for t in reversed(range(start, min(start + k, len(xs)))):
                    delta = carry + (states[t] - targets[t + 1] if t + 1 in targets else 0)
                    old = 0 if t == start else states[t - 1]  # detached, so taken as zero
                    grad = grad + delta * old
                    carry = delta * w
            return {"states": states, "loss": loss, "grad": grad}
    """,
        "carried_value_zeroed_in_gradient",
        why="the carried state taken as zero in the gradient: detaching read as zeroing",
    ),
    # ------------------------------------------------------------------ masked_rnn_forward, masked_mean_loss
    variant(
        A,
        "masked_rnn_forward",
        "masked-per-row",
        """
        def masked_rnn_forward(step, X, lengths, h0):
            X = np.asarray(X, dtype=float)
            B, T, _ = X.shape
            d = np.size(h0)
            H = np.zeros((B, T, d))
            final = np.zeros((B, d))
            for b in range(B):
                h = np.asarray(h0, dtype=float)
                for t in range(T):
                    if t < lengths[b]:
                        h = step(X[b, t], h)
                    H[b, t] = h
                final[b] = h
            return H, final
    """,
        why="one row at a time, padded steps skipped",
    ),
    variant(
        A,
        "masked_rnn_forward",
        "masked-last-column",
        """
        def masked_rnn_forward(step, X, lengths, h0):
            X = np.asarray(X, dtype=float)
            lengths = np.asarray(lengths)
            B, T = X.shape[:2]
            h = np.repeat(np.asarray(h0, dtype=float)[None, :], B, axis=0)
            H = []
            for t in range(T):
                new = step(X[:, t, :], h)
                h = np.where((lengths > t)[:, None], new, h)
                H.append(h)
            H = np.stack(H, axis=1)
            return H, H[:, -1]  # frozen states: the last column is each row's last valid state
    """,
        why="the final states read from the last column of the frozen states",
    ),
    mistake(
        A,
        "masked_rnn_forward",
        "masked-outputs-unmasked-state",
        """
        def masked_rnn_forward(step, X, lengths, h0):
            X = np.asarray(X, dtype=float)
            valid = np.arange(X.shape[1])[None, :] < np.asarray(lengths)[:, None]
            h = np.tile(np.asarray(h0, dtype=float), (X.shape[0], 1))
            shown, outputs = h.copy(), []
            for t in range(X.shape[1]):
                h = step(X[:, t], h)  # the state runs on through the padding
                shown = np.where(valid[:, t, None], h, shown)  # the outputs are held at the last valid step
                outputs.append(shown)
            return np.stack(outputs, axis=1), h
    """,
        "final_state_at_padded_end",
        why="the outputs masked, the state not: the final state is H_5, the state after the padding, not H_3",
    ),
    mistake(
        A,
        "masked_rnn_forward",
        "masked-arithmetic-blend",
        """
        def masked_rnn_forward(step, X, lengths, h0):
            X = np.asarray(X, dtype=float)
            B, T, _ = X.shape
            h = np.tile(np.asarray(h0, dtype=float), (B, 1))
            H = np.empty((B, T, h.shape[1]))
            for t in range(T):
                m = (t < np.asarray(lengths)).astype(float)[:, None]
                h = m * step(X[:, t], h) + (1 - m) * h
                H[:, t] = h
            return H, h
    """,
        None,
        hidden_only=True,
        why="the mask blended in arithmetically: 0 * NaN is NaN, so NaN or infinite padding leaks into the state",
    ),
    variant(
        A,
        "masked_mean_loss",
        "loss-where",
        """
        def masked_mean_loss(losses, mask):
            mask = np.asarray(mask, dtype=bool)
            return np.where(mask, losses, 0.0).sum() / mask.sum()
    """,
        why="np.where, a numpy float",
    ),
    mistake(
        A,
        "masked_mean_loss",
        "loss-mask-multiply",
        """
        def masked_mean_loss(losses, mask):
            mask = np.asarray(mask, dtype=float)
            return float((np.asarray(losses, dtype=float) * mask).sum() / mask.sum())
    """,
        None,
        hidden_only=True,
        why="padding removed by multiplying with the mask: NaN or infinite padding survives",
    ),
    # ------------------------------------------------------------------ generation_features, bidirectional_features
    variant(
        A,
        "generation_features",
        "generation-via-stream",
        """
        def generation_features(step, xs, h0):
            return run_stream(step, [xs], h0)[0]
    """,
        why="run_stream on one segment",
    ),
    mistake(
        A,
        "generation_features",
        "generation-plus-backward",
        """
        def generation_features(step, xs, h0):
            xs = np.asarray(xs, dtype=float)
            forward = run_stream(step, [xs], h0)[0]
            backward = run_stream(step, [xs[::-1]], h0)[0][::-1]
            return forward + backward  # context from both sides
    """,
        "backward_state_added",
        why="a backward reader's states added to the forward ones: the feature at t has read the inputs after t",
    ),
    mistake(
        A,
        "generation_features",
        "generation-state-before-read",
        """
        def generation_features(step, xs, h0):
            h, rows = np.asarray(h0, dtype=float), []
            for x in np.asarray(xs, dtype=float):
                rows.append(h)  # the state the generator has when x_t arrives
                h = step(x, h)
            return np.array(rows).reshape(len(rows), -1)
    """,
        "features_shifted_by_one",
        why="row t holds h_{t-1}, the state before reading x_t",
    ),
    variant(
        A,
        "bidirectional_features",
        "bidirectional-loops",
        """
        def bidirectional_features(step_f, step_b, xs, h0):
            xs = np.asarray(xs, dtype=float)
            T, d = len(xs), np.size(h0)
            out = np.zeros((T, 2 * d))
            h = np.asarray(h0, dtype=float)
            for t in range(T):
                h = step_f(xs[t], h)
                out[t, :d] = h
            h = np.asarray(h0, dtype=float)
            for t in reversed(range(T)):
                h = step_b(xs[t], h)
                out[t, d:] = h
            return out
    """,
        why="two loops filling the halves of a preallocated array",
    ),
    mistake(
        A,
        "bidirectional_features",
        "bidirectional-reading-order",
        """
        def bidirectional_features(step_f, step_b, xs, h0):
            xs = np.asarray(xs, dtype=float)
            forward, backward = [], []
            h = np.asarray(h0, dtype=float)
            for x in xs:
                h = step_f(x, h)
                forward.append(h)
            h = np.asarray(h0, dtype=float)
            for x in xs[::-1]:
                h = step_b(x, h)
                backward.append(h)
            return np.concatenate([np.array(forward), np.array(backward)], axis=1)
    """,
        "backward_not_realigned",
        why="the backward states left in reading order",
    ),
    mistake(
        A,
        "bidirectional_features",
        "bidirectional-after-t",
        """
        def bidirectional_features(step_f, step_b, xs, h0):
            xs = np.asarray(xs, dtype=float)
            forward = generation_features(step_f, xs, h0)
            d = np.size(h0)
            backward = np.zeros((len(xs), d))
            h = np.asarray(h0, dtype=float)
            for t in reversed(range(len(xs))):
                backward[t] = h  # what the backward reader knows of the inputs after t
                h = step_b(xs[t], h)
            return np.concatenate([forward, backward], axis=1)
    """,
        "backward_excludes_current",
        why="the backward state at t stops before x_t",
    ),
    # ------------------------------------------------------------------ exercises
    variant(
        A,
        "ex_12_7_3",
        "ex3-lists",
        """
        def ex_12_7_3():
            return {"passes": ["A"], "cut": ["C", "B"]}
    """,
        why="lists of letters",
    ),
    variant(
        A,
        "ex_12_7_6",
        "ex6-frozensets",
        """
        def ex_12_7_6():
            return {"leak": frozenset({"B", "A"}), "full_context_ok": ("S", "P")}
    """,
        why="a frozenset and a tuple",
    ),
    # ------------------------------------------------------------------ round three: branches, classics, guarded arguments
    variant(
        A,
        "masked_rnn_forward",
        "masked-where-broadcast",
        """
        def masked_rnn_forward(step, X, lengths, h0):
            X = np.asarray(X, dtype=float)
            B, T, _ = X.shape
            valid = np.arange(T)[None, :] < np.asarray(lengths).reshape(-1, 1)   # (B, T) mask
            h = np.broadcast_to(np.asarray(h0, dtype=float), (B, np.size(h0))).copy()
            H = np.zeros((B, T, np.size(h0)))
            for t in range(T):
                h = np.where(valid[:, t, None], step(X[:, t, :], h), h)
                H[:, t, :] = h
            last = np.clip(np.asarray(lengths) - 1, 0, None)
            return H, H[np.arange(B), last]   # a row of length 0 never moved from h0
    """,
        why="a (B, T) mask, np.where with broadcasting, final states gathered at clipped lengths - 1",
    ),
    variant(
        A,
        "masked_rnn_forward",
        "masked-row-lists",
        """
        def masked_rnn_forward(step, X, lengths, h0):
            all_rows, finals = [], []
            for x_row, n in zip(np.asarray(X, dtype=float), lengths):
                h = np.array(h0, dtype=float)
                row = []
                for t, x in enumerate(x_row):
                    if t < n:
                        h = step(x, h)
                    row.append(h)
                all_rows.append(row)
                finals.append(h)
            return np.array(all_rows), np.array(finals)
    """,
        why="one row at a time into nested lists, converted at the end",
    ),
    variant(
        A,
        "run_stream",
        "stream-generator",
        """
        def run_stream(step, segments, h0):
            def states():
                h = np.asarray(h0, dtype=float)
                for segment in segments:
                    for x in segment:
                        h = step(np.asarray(x, dtype=float), h)
                        yield h

            flow = states()
            return [np.array([next(flow) for _ in range(len(segment))]).reshape(len(segment), -1) for segment in segments]
    """,
        why="one generator over the whole stream, consumed segment by segment",
    ),
    variant(
        A,
        "truncated_bptt_scalar",
        "truncated-fractions",
        """
        def truncated_bptt_scalar(xs, w, targets, k, h0=0):
            xs = [Fraction(x) for x in xs]
            w, h = Fraction(w), Fraction(h0)
            y = {int(t): Fraction(v) for t, v in targets.items()}
            before, states = [], []
            for x in xs:
                before.append(h)
                h = x + w * h
                states.append(h)
            loss = sum(((states[t - 1] - v) ** 2 / 2 for t, v in y.items()), Fraction(0))
            grad = Fraction(0)
            segment_starts = list(range(0, len(xs), k))
            for start in segment_starts:
                stop = min(start + k, len(xs))
                back = Fraction(0)          # dL/dh flowing back inside this segment only
                for t in range(stop - 1, start - 1, -1):
                    if t + 1 in y:
                        back += states[t] - y[t + 1]
                    grad += back * before[t]
                    back *= w
            return {"states": states, "loss": loss, "grad": grad}
    """,
        why="everything converted to Fraction, a backward pass per segment",
    ),
    variant(
        A,
        "bidirectional_features",
        "bidirectional-slices",
        """
        def bidirectional_features(step_f, step_b, xs, h0):
            xs = np.asarray(xs, dtype=float)
            forward, h = [], np.asarray(h0, dtype=float)
            for x in xs:
                h = step_f(x, h)
                forward.append(h)
            backward, h = [], np.asarray(h0, dtype=float)
            for x in xs[::-1]:              # read from x_T down to x_1
                h = step_b(x, h)
                backward.append(h)
            backward = backward[::-1]       # back in time order: row t has read x_T..x_t
            return np.hstack([np.array(forward), np.array(backward)])
    """,
        why="reversed slicing [::-1] for the backward reader, then the states re-reversed",
    ),
    mistake(
        A,
        "truncated_bptt_scalar",
        "truncated-sliding-window",
        """
        def truncated_bptt_scalar(xs, w, targets, k, h0=0):
            states, h = [], h0
            for x in xs:
                h = x + w * h
                states.append(h)
            loss = sum((states[t - 1] - y) * (states[t - 1] - y) / 2 for t, y in targets.items())
            grad = 0
            for start in range(len(xs)):             # a window of k steps from every step
                end = min(start + k, len(xs))
                upstream = 0
                for t in range(end - 1, start - 1, -1):
                    if t + 1 in targets:
                        upstream = upstream + states[t] - targets[t + 1]
                    grad = grad + upstream * (states[t - 1] if t > 0 else h0)
                    upstream = upstream * w
            return {"states": states, "loss": loss, "grad": grad}
    """,
        "window_slides_by_one",
        why="the truncation window slides by one step: overlapping windows of k",
    ),
    mistake(
        A,
        "bidirectional_features",
        "bidirectional-flip-not-restored",
        """
        def bidirectional_features(step_f, step_b, xs, h0):
            forward = generation_features(step_f, xs, h0)
            backward = generation_features(step_b, np.flip(np.asarray(xs, dtype=float), axis=0), h0)
            return np.hstack((forward, backward))
    """,
        "backward_not_realigned",
        why="the inputs flipped for the backward reader, its states never flipped back",
    ),
    mistake(
        A,
        "masked_mean_loss",
        "loss-denominator-all-positions",
        """
        def masked_mean_loss(losses, mask):
            kept = np.where(np.asarray(mask, dtype=bool), np.asarray(losses, dtype=float), 0.0)
            return float(kept.sum() / kept.size)
    """,
        "loss_averaged_over_padding",
        why="padding kept out of the sum but counted in the denominator",
    ),
    mistake(
        A,
        "run_independent",
        "independent-chained",
        """
        def run_independent(step, sequences, h0):
            results, h = [], np.asarray(h0, dtype=float)
            for xs in sequences:
                states = []
                for x in np.asarray(xs, dtype=float):
                    h = step(x, h)  # one h for the whole loop: each sequence goes on from the last
                    states.append(h)
                results.append(np.array(states, dtype=float).reshape(len(states), np.size(h)))
            return results
    """,
        "state_carried_across_sequences",
        why="each sequence started from the previous one's last state",
    ),
    mistake(
        A,
        "masked_mean_loss",
        "loss-zeroes-padding-in-place",
        """
        def masked_mean_loss(losses, mask):
            losses = np.asarray(losses, dtype=float)
            mask = np.asarray(mask, dtype=bool)
            losses[~mask] = 0.0          # clean the padding first (in the caller's array)
            return float(losses.sum() / mask.sum())
    """,
        None,
        why="the padded losses zeroed in the caller's array: the argument guard fails it",
    ),
    mistake(
        A,
        "masked_rnn_forward",
        "masked-zeroes-padding-in-place",
        """
        def masked_rnn_forward(step, X, lengths, h0):
            X = np.asarray(X, dtype=float)
            B, T, _ = X.shape
            padded = np.arange(T)[None, :] >= np.asarray(lengths)[:, None]
            X[padded] = 0.0              # padding cleaned in place, in the caller's batch
            h = np.tile(np.asarray(h0, dtype=float), (B, 1))
            H = np.empty((B, T, h.shape[1]))
            for t in range(T):
                h = np.where(padded[:, t, None], h, step(X[:, t], h))
                H[:, t] = h
            return H, h
    """,
        None,
        why="the padded inputs zeroed in the caller's X: the argument guard fails it",
    ),
    mistake(
        A,
        "masked_rnn_forward",
        "masked-empty-row-crash",
        """
        def masked_rnn_forward(step, X, lengths, h0):
            X = np.asarray(X, dtype=float)
            B, T, _ = X.shape
            H = np.zeros((B, T, np.size(h0)))
            final = np.zeros((B, np.size(h0)))
            for b in range(B):
                states, h = [], np.asarray(h0, dtype=float)
                for t in range(int(lengths[b])):
                    h = step(X[b, t], h)
                    states.append(h)
                H[b, :len(states)] = states
                H[b, len(states):] = states[-1]   # hold the last valid state
                final[b] = states[-1]
            return H, final
    """,
        None,
        why="the last valid state taken as states[-1]: a row that is all padding has none",
    ),
    mistake(
        A,
        "generation_features",
        "generation-from-zeros",
        """
        def generation_features(step, xs, h0):
            xs = np.asarray(xs, dtype=float)
            h = np.zeros(np.size(h0))           # start from a clean state
            out = np.zeros((len(xs), np.size(h0)))
            for t in range(len(xs)):
                h = step(xs[t], h)
                out[t] = h
            return out
    """,
        None,
        why="h0 ignored: every run starts from zeros",
    ),
    mistake(
        A,
        "run_entities",
        "entities-falsy-first-check",
        """
        def run_entities(step, stream, h0):
            last, h, rows = None, None, []
            for entity, x in stream:
                if not last or entity != last:     # first pair, or a new entity
                    h = np.asarray(h0, dtype=float)
                h = step(np.asarray(x, dtype=float), h)
                last = entity
                rows.append(h)
            return np.array(rows).reshape(len(rows), -1)
    """,
        None,
        why="`not last` used for the first pair: an entity id 0 resets at every one of its steps",
    ),
    variant(
        A,
        "ex_12_7_6",
        "ex6-sorted-lists",
        """
        def ex_12_7_6():
            leak = sorted({"B", "A"})
            return {"leak": leak, "full_context_ok": sorted("SP")}
    """,
        why="sorted lists of letters",
    ),
]

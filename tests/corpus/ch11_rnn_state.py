"""Corpus entries of ch11_rnn_state (setup cell: json, Fraction, Path, plt, np, load_model)."""

from . import mistake, variant

A = "ch11_rnn_state"

ENTRIES = [
    # ------------------------------------------------------------------ relu
    variant(
        A,
        "relu",
        "relu-where",
        """
        def relu(v):
            v = np.asarray(v, dtype=float)
            return np.where(v > 0, v, 0.0)
    """,
        why="np.where",
    ),
    variant(
        A,
        "relu",
        "relu-listcomp",
        """
        def relu(v):
            return [float(t) if t > 0 else 0.0 for t in v]
    """,
        why="a list comprehension returning a list (rnn_step and the window then return lists too)",
    ),
    mistake(
        A,
        "relu",
        "relu-abs",
        """
        def relu(v):
            return np.abs(np.asarray(v, dtype=float))
    """,
        None,
        why="negative entries flipped to positive instead of cut to zero",
    ),
    # ------------------------------------------------------------------ softmax
    variant(
        A,
        "softmax",
        "softmax-math-loop",
        """
        import math

        def softmax(z):
            top = max(z)
            exps = [math.exp(score - top) for score in z]
            total = sum(exps)
            return [e / total for e in exps]
    """,
        why="math.exp in a loop, a list of floats",
    ),
    variant(
        A,
        "softmax",
        "softmax-logsumexp",
        """
        def softmax(z):
            z = np.asarray(z, dtype=np.float64)
            m = z.max()
            log_total = m + np.log(np.exp(z - m).sum())
            return np.exp(z - log_total)
    """,
        why="log-sum-exp",
    ),
    variant(
        A,
        "softmax",
        "softmax-float64-keepdims",
        """
        def softmax(z):
            z = np.asarray(z).astype(np.float64)  # a float32 or int input is widened first
            e = np.exp(z - np.max(z, keepdims=True))
            return e / e.sum(keepdims=True)
    """,
        why="astype(float64) before anything else, keepdims reductions",
    ),
    variant(
        A,
        "softmax",
        "softmax-comprehension-fsum",
        """
        import math

        def softmax(z):
            scores = [float(s) for s in z]
            top = max(scores)
            weights = [math.exp(s - top) for s in scores]
            total = math.fsum(weights)
            return np.array([w / total for w in weights])
    """,
        why="plain floats, math.fsum, an array built from a list",
    ),
    mistake(
        A,
        "softmax",
        "softmax-shift-by-min",
        """
        def softmax(z):
            z = np.asarray(z, dtype=float)
            e = np.exp(z - z.min())  # "subtract a logit so the numbers stay small"
            return e / e.sum()
    """,
        None,
        why="shifted by the smallest logit: right while the logits are close, NaN once they are far apart",
    ),
    mistake(
        A,
        "softmax",
        "softmax-float32",
        """
        def softmax(z):
            z = np.asarray(z, dtype=np.float32)  # "saves memory"
            e = np.exp(z - z.max())
            return e / e.sum()
    """,
        "float32_precision",
        why="computed in float32: off by float32 rounding everywhere",
    ),
    mistake(
        A,
        "softmax",
        "softmax-unshifted",
        """
        def softmax(z):
            e = np.exp(np.asarray(z, dtype=float))
            return e / e.sum()
    """,
        None,
        why="no max shift: exp overflows for large logits (NaN)",
    ),
    # ------------------------------------------------------------------ choose
    variant(
        A,
        "choose",
        "choose-argmax",
        """
        def choose(probs, candidates):
            return candidates[int(np.argmax(probs))]  # argmax returns the first of equal maxima
    """,
        why="np.argmax",
    ),
    variant(
        A,
        "choose",
        "choose-npstr",
        """
        def choose(probs, candidates):
            return np.array(candidates)[np.argmax(np.asarray(probs))]
    """,
        why="returns a numpy string (np.str_)",
    ),
    mistake(
        A,
        "choose",
        "choose-tuple-max",
        """
        def choose(probs, candidates):
            return max(zip(probs, candidates))[1]
    """,
        "tie_to_last",
        why="max over tuples: a tie is broken by the candidates' names (alphabetically last), not by their order",
    ),
    mistake(
        A,
        "choose",
        "choose-argmax-index",
        """
        def choose(probs, candidates):
            return np.argmax(probs)
    """,
        "choice_as_index",
        why="returns the position (np.int64), not the candidate",
    ),
    # ------------------------------------------------------------------ rnn_step
    variant(
        A,
        "rnn_step",
        "rnn-step-concat",
        """
        def rnn_step(x, h_prev, W_x, W_h, b_h):
            u = np.concatenate([x, h_prev])
            W = np.vstack([W_x, W_h])
            return relu(u @ W + b_h)
    """,
        why="one matrix over the concatenation [x, h_prev]",
    ),
    variant(
        A,
        "rnn_step",
        "rnn-step-loops",
        """
        def rnn_step(x, h_prev, W_x, W_h, b_h):
            new = []
            for j in range(len(b_h)):
                total = b_h[j]
                for i in range(len(x)):
                    total += x[i] * W_x[i][j]
                for i in range(len(h_prev)):
                    total += h_prev[i] * W_h[i][j]
                new.append(max(total, 0.0))
            return new
    """,
        why="explicit index loops, a list of numpy floats",
    ),
    variant(
        A,
        "rnn_step",
        "rnn-step-np-dot",
        """
        def rnn_step(x, h_prev, W_x, W_h, b_h):
            return np.maximum(0, np.dot(x, W_x) + np.dot(h_prev, W_h) + b_h)
    """,
        why="np.dot and np.maximum, without the notebook's relu",
    ),
    variant(
        A,
        "rnn_step",
        "rnn-step-einsum",
        """
        def rnn_step(x, h_prev, W_x, W_h, b_h):
            pre = np.einsum("i,ij->j", np.asarray(x, float), W_x) + np.einsum("i,ij->j", np.asarray(h_prev, float), W_h) + b_h
            return relu(pre)
    """,
        why="np.einsum for both products",
    ),
    variant(
        A,
        "rnn_step",
        "rnn-step-fractions",
        """
        def rnn_step(x, h_prev, W_x, W_h, b_h):
            F = lambda a: Fraction(float(a))  # every float is a dyadic rational: exact arithmetic
            new = []
            for j in range(len(b_h)):
                total = F(b_h[j])
                total += sum(F(x[i]) * F(W_x[i][j]) for i in range(len(x)))
                total += sum(F(h_prev[i]) * F(W_h[i][j]) for i in range(len(h_prev)))
                new.append(max(total, Fraction(0)))
            return new
    """,
        why="exact Fractions, a list of Fractions (its callers carry them through 100 fillers)",
    ),
    mistake(
        A,
        "rnn_step",
        "rnn-step-column-vectors",
        """
        def rnn_step(x, h_prev, W_x, W_h, b_h):
            return relu(W_x @ x + W_h @ h_prev + b_h)
    """,
        "column_vector_convention",
        why="column-vector convention for both matrices (W_x too, not only W_h)",
    ),
    mistake(
        A,
        "rnn_step",
        "rnn-step-wx-transposed",
        """
        def rnn_step(x, h_prev, W_x, W_h, b_h):
            input_part = np.dot(W_x, x)  # matrix times vector, as in the linear algebra course
            return relu(input_part + np.dot(h_prev, W_h) + b_h)
    """,
        "input_weight_transposed",
        why="W_x @ x: only the input term transposed (the book's W_x is the identity)",
    ),
    # ------------------------------------------------------------------ output_logits
    variant(
        A,
        "output_logits",
        "logits-einsum",
        """
        def output_logits(h, W_y, b_y):
            return np.einsum("i,ij->j", np.asarray(h, dtype=float), W_y) + b_y
    """,
        why="np.einsum",
    ),
    mistake(
        A,
        "output_logits",
        "logits-weights-on-the-left",
        """
        def output_logits(h, W_y, b_y):
            return W_y @ np.asarray(h, dtype=float) + b_y
    """,
        None,
        why="W_y @ h: the output weights applied as a column (the book's W_y is the identity)",
    ),
    # ------------------------------------------------------------------ run_rnn
    variant(
        A,
        "run_rnn",
        "run-recursive",
        """
        def run_rnn(token_ids, model):
            def go(ids, h):
                if not ids:
                    return []
                h = rnn_step(model["embeddings"][ids[0]], h, model["W_x"], model["W_h"], model["b_h"])
                z = output_logits(h, model["W_y"], model["b_y"])
                return [{"h": h, "logits": z, "probs": softmax(z)}] + go(ids[1:], h)
            return go(list(token_ids), np.zeros(len(model["b_h"])))
    """,
        why="a recursive helper defined inside",
    ),
    variant(
        A,
        "run_rnn",
        "run-ordereddict",
        """
        from collections import OrderedDict

        def run_rnn(token_ids, model):
            h = np.zeros_like(model["b_h"], dtype=float)
            trace = []
            for t in token_ids:
                h = rnn_step(model["embeddings"][t], h, model["W_x"], model["W_h"], model["b_h"])
                record = OrderedDict()
                record["h"] = h
                record["logits"] = output_logits(h, model["W_y"], model["b_y"])
                record["probs"] = softmax(record["logits"])
                trace.append(record)
            return trace
    """,
        why="an OrderedDict per step",
    ),
    mistake(
        A,
        "run_rnn",
        "run-aliased-state",
        """
        def run_rnn(token_ids, model):
            h = np.zeros(len(model["b_h"]))
            steps = []
            for token in token_ids:
                h[:] = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
                logits = output_logits(h, model["W_y"], model["b_y"])
                steps.append({"h": h, "logits": logits, "probs": softmax(logits)})
            return steps
    """,
        None,
        why="h updated in place: every step's dict holds the same array, the last state",
    ),
    mistake(
        A,
        "run_rnn",
        "run-global-state",
        """
        LAST = {}

        def run_rnn(token_ids, model):
            h = LAST.get("h", np.zeros(len(model["b_h"])))
            steps = []
            for token in token_ids:
                h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
                logits = output_logits(h, model["W_y"], model["b_y"])
                steps.append({"h": h, "logits": logits, "probs": softmax(logits)})
            LAST["h"] = h
            return steps
    """,
        "state_carried_between_calls",
        why="the last state kept in a module-level dict: the next call goes on from it",
    ),
    mistake(
        A,
        "run_rnn",
        "run-probs-of-state",
        """
        def run_rnn(token_ids, model):
            h, out = np.zeros(2), []
            for token in token_ids:
                h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
                out.append({"h": h, "logits": output_logits(h, model["W_y"], model["b_y"]), "probs": softmax(h)})
            return out
    """,
        "softmax_over_hidden_state",
        why="softmax of the hidden state instead of the logits",
    ),
    # ------------------------------------------------------------------ window_logits
    variant(
        A,
        "window_logits",
        "window-fancy-index",
        """
        def window_logits(token_ids, model):
            pair = model["embeddings"][list(token_ids[-2:])].reshape(-1)
            W, b = model["window_baseline"]["W"], model["window_baseline"]["b"]
            return output_logits(relu(pair @ W + b), model["W_y"], model["b_y"])
    """,
        why="fancy indexing of the last two rows, flattened",
    ),
    mistake(
        A,
        "window_logits",
        "window-no-relu",
        """
        def window_logits(token_ids, model):
            x = np.concatenate([model["embeddings"][token_ids[-2]], model["embeddings"][token_ids[-1]]])
            hidden = x @ model["window_baseline"]["W"] + model["window_baseline"]["b"]
            return output_logits(hidden, model["W_y"], model["b_y"])
    """,
        "window_without_relu",
        why="the window's hidden layer without ReLU (a public case has a negative pre-activation)",
    ),
    variant(
        A,
        "window_logits",
        "window-hstack-loop",
        """
        def window_logits(token_ids, model):
            earlier, last = token_ids[len(token_ids) - 2], token_ids[len(token_ids) - 1]
            x = np.hstack((model["embeddings"][earlier], model["embeddings"][last]))
            W, b = model["window_baseline"]["W"], model["window_baseline"]["b"]
            hidden = [max(0.0, float(sum(x[i] * W[i][j] for i in range(len(x))) + b[j])) for j in range(len(b))]
            return np.array(hidden) @ model["W_y"] + model["b_y"]
    """,
        why="np.hstack, a hand-written hidden layer, its own output head",
    ),
    mistake(
        A,
        "window_logits",
        "window-relu-on-logits",
        """
        def window_logits(token_ids, model):
            x = np.concatenate([model["embeddings"][token_ids[-2]], model["embeddings"][token_ids[-1]]])
            hidden = x @ model["window_baseline"]["W"] + model["window_baseline"]["b"]
            return relu(output_logits(hidden, model["W_y"], model["b_y"]))  # ReLU at the end instead
    """,
        "window_without_relu",
        why="ReLU applied to the logits instead of the hidden layer: the hidden layer lets negative values "
        "through, and where every logit is positive the answer is exactly that mistake's",
    ),
    # ------------------------------------------------------------------ min_fillers_to_flip
    variant(
        A,
        "min_fillers_to_flip",
        "fillers-via-run-rnn",
        """
        def min_fillers_to_flip(model):
            ids, red = model["vocabulary"], model["candidates"][0]
            for n in range(101):
                sequence = [ids["blue"]] + [ids["filler"]] * n + [ids["key"], ids["is"]]
                last = run_rnn(sequence, model)[-1]
                if choose(last["probs"], model["candidates"]) == red:
                    return n
            return None
    """,
        why="reruns the whole sequence with run_rnn for each count, chooses on the probabilities",
    ),
    variant(
        A,
        "min_fillers_to_flip",
        "fillers-while-loop",
        """
        def min_fillers_to_flip(model):
            v = model["vocabulary"]
            n = 0
            while n <= 100:
                h = np.zeros(2)
                for token in [v["blue"]] + [v["filler"]] * n + [v["key"], v["is"]]:
                    h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
                z = output_logits(h, model["W_y"], model["b_y"])
                if z[0] >= max(z):  # a tie goes to red, the first candidate
                    return n
                n += 1
            return None
    """,
        why="a while loop, the whole sequence rerun per count, the choice read from the logits",
    ),
    mistake(
        A,
        "min_fillers_to_flip",
        "fillers-from-one",
        """
        def min_fillers_to_flip(model):
            ids = model["vocabulary"]
            for n in range(1, 101):  # "the fewest fillers" taken to be at least one
                last = run_rnn([ids["blue"]] + [ids["filler"]] * n + [ids["key"], ids["is"]], model)[-1]
                if choose(last["probs"], model["candidates"]) == model["candidates"][0]:
                    return n
            return None
    """,
        None,
        why="the count starts at 1: a model that flips with no filler gets 1",
    ),
    mistake(
        A,
        "min_fillers_to_flip",
        "fillers-strict-win",
        """
        def min_fillers_to_flip(model):
            ids = model["vocabulary"]
            for n in range(101):
                last = run_rnn([ids["blue"]] + [ids["filler"]] * n + [ids["key"], ids["is"]], model)[-1]
                if last["probs"][0] > last["probs"][1]:  # red must beat blue
                    return n
            return None
    """,
        None,
        why="red must win strictly: an exact tie (which the tie rule gives to red) is not counted",
    ),
    # ------------------------------------------------------------------ exercises
    variant(
        A,
        "ex_11_7_1",
        "ex1-lists",
        """
        def ex_11_7_1(model):
            n = min_fillers_to_flip(model)
            v = model["vocabulary"]
            steps = run_rnn([v["blue"], *[v["filler"]] * n, v["key"], v["is"]], model)
            return {"min_fillers": np.int64(n), "final_h": steps[-1]["h"].tolist(), "logits": list(steps[-1]["logits"])}
    """,
        why="np.int64 count, lists of floats",
    ),
    variant(
        A,
        "ex_11_7_2",
        "ex2-diag-indices",
        """
        def ex_11_7_2(m):
            W_h = np.array(m["W_h"], dtype=float)
            W_h[np.diag_indices_from(W_h)] = 1
            last = run_rnn(m["inputs"]["long_blue"], dict(m, W_h=W_h))[-1]
            return {"final_h": tuple(last["h"]), "logits": last["logits"], "choice": np.str_(choose(last["probs"], m["candidates"]))}
    """,
        why="np.diag_indices_from, a tuple state and an np.str_ choice",
    ),
    variant(
        A,
        "ex_11_7_2",
        "ex2-deepcopy",
        """
        import copy

        def ex_11_7_2(model):
            m = copy.deepcopy(model)  # the caller's model stays as it was
            for i in range(len(m["W_h"])):
                m["W_h"][i][i] = 1.0
            last = run_rnn(m["inputs"]["long_blue"], m)[-1]
            return {"final_h": last["h"], "logits": last["logits"], "choice": choose(last["probs"], m["candidates"])}
    """,
        why="copy.deepcopy of the whole model, the diagonal set in a loop",
    ),
    mistake(
        A,
        "ex_11_7_2",
        "ex2-mutates-model",
        """
        def ex_11_7_2(model):
            W_h = model["W_h"]  # not a copy: the caller's matrix
            np.fill_diagonal(W_h, 1.0)
            last = run_rnn(model["inputs"]["long_blue"], model)[-1]
            return {"final_h": last["h"], "logits": last["logits"], "choice": choose(last["probs"], model["candidates"])}
    """,
        None,
        why="changes the caller's W_h in place (right values, but the model is not left unchanged)",
    ),
    mistake(
        A,
        "ex_11_7_2",
        "ex2-argmax-state",
        """
        def ex_11_7_2(model):
            W_h = model["W_h"].copy()
            W_h[0, 0] = W_h[1, 1] = 1.0
            last = run_rnn(model["inputs"]["long_blue"], {**model, "W_h": W_h})[-1]
            # the coordinates are "red" and "blue": pick the larger one
            return {"final_h": last["h"], "logits": last["logits"], "choice": model["candidates"][int(np.argmax(last["h"]))]}
    """,
        "choice_read_from_the_state",
        why="the choice read from the state's larger coordinate, not from the logits",
    ),
    mistake(
        A,
        "ex_11_7_1",
        "ex1-from-one",
        """
        def ex_11_7_1(model):
            v = model["vocabulary"]
            for n in range(1, 101):  # at least one filler "between" blue and key
                last = run_rnn([v["blue"], *[v["filler"]] * n, v["key"], v["is"]], model)[-1]
                if last["logits"][0] >= last["logits"][1]:
                    return {"min_fillers": n, "final_h": last["h"], "logits": last["logits"]}
    """,
        None,
        why="its own search from one filler: a model that flips with none gets 1",
    ),
    mistake(
        A,
        "ex_11_7_1",
        "ex1-book-model-only",
        """
        def ex_11_7_1(model):
            book = load_model()  # the book's model, whatever model was passed in
            n = min_fillers_to_flip(book)
            v = book["vocabulary"]
            last = run_rnn([v["blue"], *[v["filler"]] * n, v["key"], v["is"]], book)[-1]
            return {"min_fillers": n, "final_h": last["h"], "logits": last["logits"]}
    """,
        None,
        why="answers for the book's model only: the self-check's other models and the grade's fail",
    ),
    variant(
        A,
        "ex_11_7_3",
        "ex3-numpy-mask",
        """
        def ex_11_7_3():
            letters = np.array(list("ABCDE"))
            correct = np.array([False, True, True, False, True])
            return set(letters[correct])  # a set of np.str_
    """,
        why="a boolean numpy mask over the letters: a set of numpy strings",
    ),
    variant(
        A,
        "ex_11_7_4",
        "ex4-frozenset",
        """
        def ex_11_7_4():
            return frozenset("DE")
    """,
        why="a frozenset",
    ),
    variant(
        A,
        "ex_11_7_5",
        "ex5-tuple",
        """
        def ex_11_7_5():
            return ("C", "B")
    """,
        why="a tuple of letters, any order",
    ),
]

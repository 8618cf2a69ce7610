"""ch12_gates, instructor side: the chapter's conventions against PyTorch's cells (skipped without torch).

torch is not a dependency of the course; run this file in a scratch environment that has it.

Mapping (row vectors here, torch computes x W_ih^T + b_ih + h W_hh^T + b_hh, gate blocks stacked):

* LSTM. torch.nn.LSTMCell stacks the blocks in the order (i, f, g, o). Our A_k of shape (m + d, d)
  acts on u = [x, h_prev], so its first m rows are the input weights and its last d rows the
  recurrent weights: weight_ih = [A_i[:m]^T; A_f[:m]^T; A_g[:m]^T; A_o[:m]^T], weight_hh likewise
  with the rows [m:], bias_ih = [b_i; b_f; b_g; b_o] and bias_hh = 0. Same equations, so the outputs
  agree; torch's two biases per block add up to our one (that is why it has 4H(D+H+2) parameters).

* GRU. torch.nn.GRUCell stacks (r, z, n) and computes
      n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)),   h' = (1 - z) * n + z * h.
  Its update gate keeps the old state, as in Cho's convention of Chapter 12 (it is NOT the second
  text's complementary convention; `test_gru_cell_update_gate_keeps_the_old_state` shows it).
  What differs is where the reset acts: after the recurrent matrix product and on the recurrent
  candidate bias b_hn (the third text's "PyTorch placement"), against (r * h_prev) U_g in the chapter.
  With weight_ih = [A_r[:m]^T; A_z[:m]^T; W_g^T], weight_hh = [A_r[m:]^T; A_z[m:]^T; U_g^T],
  bias_ih = [b_r; b_z; b_g], bias_hh = [0; 0; b_hg], GRUCell equals `gru_step_pytorch_convention`
  below, and differs from `gru_step` as soon as U_g mixes coordinates (or b_hg is not 0).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from autograder.assignments import get  # noqa: E402

solution = get("ch12_gates").solution()

SEEDS = range(40)


def _rng_case(seed: int, *, gru: bool, diagonal: bool = False, recurrent_bias: bool = True):
    rng = np.random.default_rng(seed)
    m, d = int(rng.integers(1, 5)), int(rng.integers(1 if diagonal else 2, 6))
    if gru:
        params = {
            "A_r": rng.normal(size=(m + d, d)),
            "A_z": rng.normal(size=(m + d, d)),
            "W_g": rng.normal(size=(m, d)),
            "U_g": np.diag(rng.normal(size=d)) if diagonal else rng.normal(size=(d, d)),
            "b_r": rng.normal(size=d),
            "b_z": rng.normal(size=d),
            "b_g": rng.normal(size=d),
            "b_hg": rng.normal(size=d) if recurrent_bias else np.zeros(d),
        }
    else:
        params = {f"A_{k}": rng.normal(size=(m + d, d)) for k in "fiog"} | {
            f"b_{k}": rng.normal(size=d) for k in "fiog"
        }
    return m, d, rng.normal(size=m), rng.normal(size=d), rng.normal(size=d), params


def _t(array) -> torch.Tensor:
    return torch.from_numpy(np.asarray(array, dtype=np.float64))


def lstm_cell_from(params: dict, m: int, d: int) -> torch.nn.LSTMCell:
    """torch.nn.LSTMCell with the chapter's LSTM parameters, gate blocks in torch's order (i, f, g, o)."""
    cell = torch.nn.LSTMCell(m, d, dtype=torch.float64)
    with torch.no_grad():
        cell.weight_ih.copy_(_t(np.concatenate([params[f"A_{k}"][:m].T for k in "ifgo"])))
        cell.weight_hh.copy_(_t(np.concatenate([params[f"A_{k}"][m:].T for k in "ifgo"])))
        cell.bias_ih.copy_(_t(np.concatenate([params[f"b_{k}"] for k in "ifgo"])))
        cell.bias_hh.zero_()
    return cell


def params_from_lstm_cell(cell: torch.nn.LSTMCell) -> dict:
    """The reverse map: torch's two biases per block add up to the chapter's one."""
    W_ih, W_hh = cell.weight_ih.detach().numpy(), cell.weight_hh.detach().numpy()
    bias = (cell.bias_ih + cell.bias_hh).detach().numpy()
    d = cell.hidden_size
    params = {}
    for block, k in enumerate("ifgo"):
        rows = slice(block * d, (block + 1) * d)
        params[f"A_{k}"] = np.concatenate([W_ih[rows].T, W_hh[rows].T])
        params[f"b_{k}"] = bias[rows]
    return params


def gru_cell_from(params: dict, m: int, d: int) -> torch.nn.GRUCell:
    """torch.nn.GRUCell with the chapter's GRU parameters (blocks r, z, n); b_hg is torch's b_hn."""
    cell = torch.nn.GRUCell(m, d, dtype=torch.float64)
    with torch.no_grad():
        cell.weight_ih.copy_(_t(np.concatenate([params["A_r"][:m].T, params["A_z"][:m].T, params["W_g"].T])))
        cell.weight_hh.copy_(_t(np.concatenate([params["A_r"][m:].T, params["A_z"][m:].T, params["U_g"].T])))
        cell.bias_ih.copy_(_t(np.concatenate([params["b_r"], params["b_z"], params["b_g"]])))
        cell.bias_hh.copy_(_t(np.concatenate([np.zeros(d), np.zeros(d), params.get("b_hg", np.zeros(d))])))
    return cell


def gru_step_pytorch_convention(x, h_prev, params):
    """PyTorch's GRU in the chapter's notation: the update gate keeps h_prev (as in Cho), but the reset
    multiplies the recurrent product AND the recurrent bias: g = tanh(x W_g + b_g + r * (h_prev U_g + b_hg))."""
    x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
    u = np.concatenate([x, h_prev])
    r = solution.sigmoid(u @ params["A_r"] + params["b_r"])
    z = solution.sigmoid(u @ params["A_z"] + params["b_z"])
    g = np.tanh(x @ params["W_g"] + params["b_g"] + r * (h_prev @ params["U_g"] + params.get("b_hg", 0.0)))
    return z * h_prev + (1 - z) * g


def _torch_gru(params, m, d, x, h):
    with torch.no_grad():
        return gru_cell_from(params, m, d)(_t(x)[None], _t(h)[None])[0].numpy()


@pytest.mark.parametrize("seed", SEEDS)
def test_lstm_step_matches_lstm_cell_with_the_gate_order_mapped(seed):
    m, d, x, h, c, params = _rng_case(seed, gru=False)
    with torch.no_grad():
        h_torch, c_torch = lstm_cell_from(params, m, d)(_t(x)[None], (_t(h)[None], _t(c)[None]))
    h_ours, c_ours, _ = solution.lstm_step(x, h, c, params)
    assert np.allclose(h_ours, h_torch[0].numpy(), rtol=0, atol=1e-12)
    assert np.allclose(c_ours, c_torch[0].numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS[:10])
def test_a_torch_lstm_cell_maps_back_with_its_two_biases_summed(seed):
    torch.manual_seed(seed)
    m, d = 1 + seed % 4, 1 + seed % 5
    cell = torch.nn.LSTMCell(m, d, dtype=torch.float64)
    x, h, c = (
        torch.randn(1, m, dtype=torch.float64),
        torch.randn(1, d, dtype=torch.float64),
        torch.randn(1, d, dtype=torch.float64),
    )
    with torch.no_grad():
        h_torch, c_torch = cell(x, (h, c))
    h_ours, c_ours, _ = solution.lstm_step(x[0].numpy(), h[0].numpy(), c[0].numpy(), params_from_lstm_cell(cell))
    assert np.allclose(h_ours, h_torch[0].numpy(), atol=1e-12) and np.allclose(c_ours, c_torch[0].numpy(), atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_gru_cell_is_the_pytorch_convention_and_not_the_chapters(seed):
    m, d, x, h, _, params = _rng_case(seed, gru=True)
    torch_h = _torch_gru(params, m, d, x, h)
    assert np.allclose(torch_h, gru_step_pytorch_convention(x, h, params), rtol=0, atol=1e-12)
    chapter = {k: v for k, v in params.items() if k != "b_hg"}
    assert np.max(np.abs(torch_h - solution.gru_step(x, h, chapter))) > 1e-6  # U_g is not diagonal
    without_bias = {**params, "b_hg": np.zeros(d)}
    assert np.max(np.abs(_torch_gru(without_bias, m, d, x, h) - solution.gru_step(x, h, chapter))) > 1e-6


@pytest.mark.parametrize("seed", SEEDS[:15])
def test_with_a_diagonal_u_g_and_no_recurrent_bias_gru_cell_equals_gru_step(seed):
    m, d, x, h, _, params = _rng_case(seed, gru=True, diagonal=True, recurrent_bias=False)
    assert np.allclose(_torch_gru(params, m, d, x, h), solution.gru_step(x, h, params), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS[:15])
def test_the_catalogued_reset_after_matmul_mistake_is_gru_cell_without_recurrent_bias(seed):
    m, d, x, h, _, params = _rng_case(seed, gru=True, recurrent_bias=False)
    mutant = next(e for e in get("ch12_gates").mistakes() if e.id == "gru_reset_after_matmul").namespace()["gru_step"]
    assert np.allclose(_torch_gru(params, m, d, x, h), mutant(x, h, params), rtol=0, atol=1e-12)


def test_gru_cell_update_gate_keeps_the_old_state():
    """z -> 1 keeps h_prev in torch as in Cho's convention; the complementary convention would give the candidate."""
    m, d, x, h, _, params = _rng_case(3, gru=True)
    keep = {**params, "A_z": np.zeros_like(params["A_z"]), "b_z": np.full(d, 50.0)}
    assert np.allclose(_torch_gru(keep, m, d, x, h), h, atol=1e-15)
    complementary = next(e for e in get("ch12_gates").mistakes() if e.id == "gru_complementary_update").namespace()[
        "gru_step"
    ]
    assert not np.allclose(complementary(x, h, {k: v for k, v in keep.items() if k != "b_hg"}), h, atol=1e-3)


def test_parameter_counts_match_torch_layouts():
    D, H = 4, 3
    count = lambda module: sum(p.numel() for p in module.parameters())  # noqa: E731
    assert (
        count(torch.nn.LSTMCell(D, H)) == count(torch.nn.LSTM(D, H)) == solution.lstm_param_count_two_bias(D, H) == 108
    )
    assert count(torch.nn.GRUCell(D, H)) == solution.gru_param_count(D, H) + 3 * H == 81
    assert count(torch.nn.RNNCell(D, H)) == solution.rnn_param_count(D, H) + H == 27
    for D, H in ((1, 1), (7, 5), (32, 64)):
        assert count(torch.nn.LSTMCell(D, H)) == solution.lstm_param_count_two_bias(D, H)
        assert count(torch.nn.LSTMCell(D, H)) - 4 * H == solution.lstm_param_count(D, H)

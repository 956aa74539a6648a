"""examples/train_digits.py, the stax + Adam training example, on a small
budget: always on NumPy-made stand-in data (no scikit-learn), and on
scikit-learn's digits where scikit-learn is installed. Where JAX is
installed, the same code under JAX must give the same losses."""
import importlib.util
import os
import sys

import numpy as np
import pytest

import jaxc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import train_digits as D  # noqa: E402


@pytest.fixture(scope="module")
def synthetic():
    return D.synthetic_digits(samples=600)


def test_synthetic_data_and_batches():
    data = D.synthetic_digits(samples=200, test_fraction=0.25)
    assert data.x_train.shape == (150, 8, 8, 1) and data.x_test.shape == (50, 8, 8, 1)
    assert data.x_train.dtype == np.float32 and data.y_train.dtype == np.int32
    assert 0.0 <= data.x_train.min() and data.x_train.max() <= 1.0
    # Stratified: every class in the same proportion in both sets.
    assert np.bincount(data.y_test, minlength=10).tolist() == [5] * 10
    idx = D.batches(150, 64, epoch=3)
    assert [len(i) for i in idx] == [64, 64]
    assert len(np.unique(np.concatenate(idx))) == 128
    assert not np.array_equal(idx[0], D.batches(150, 64, epoch=4)[0])
    assert np.array_equal(idx[0], D.batches(150, 64, epoch=3)[0])


@pytest.mark.parametrize("model,epochs,least", [("mlp", 5, 0.4), ("conv", 4, 0.4)])
def test_training_on_synthetic_data_learns(synthetic, model, epochs, least):
    lines = []
    params, hist = D.train(jaxc, model, synthetic, epochs=epochs, progress=False, log=lines.append)
    assert len(hist.loss) == len(hist.accuracy) == len(hist.seconds) == epochs
    assert len(lines) == epochs + 1 and "test accuracy" in lines[-1]
    assert all(np.isfinite(hist.loss))
    assert hist.loss[0] < 2.35                     # about log 10 at the start
    assert all(b < a for a, b in zip(hist.loss, hist.loss[1:])), hist.loss
    assert hist.loss[-1] < 0.8 * hist.loss[0]
    assert hist.accuracy[-1] > least, hist.accuracy  # chance: 0.1
    # The returned parameters are the trained ones.
    _, apply_fun = D.make_model(jaxc, model)
    pred = np.argmax(np.asarray(apply_fun(params, jaxc.device_put(synthetic.x_test))), axis=-1)
    assert np.mean(pred == synthetic.y_test) == pytest.approx(hist.accuracy[-1], abs=1e-6)


def test_same_losses_as_jax(synthetic):
    jax = pytest.importorskip("jax")
    _, ours = D.train(jaxc, "mlp", synthetic, epochs=2, progress=False, log=None)
    _, theirs = D.train(jax, "mlp", synthetic, epochs=2, progress=False, log=None)
    np.testing.assert_allclose(ours.loss, theirs.loss, rtol=1e-4)
    np.testing.assert_allclose(ours.accuracy, theirs.accuracy, atol=1 / 150 + 1e-6)  # one test image


def test_unknown_model_and_too_little_data(synthetic):
    with pytest.raises(ValueError, match="unknown model"):
        D.make_model(jaxc, "resnet")
    with pytest.raises(ValueError, match="fewer training samples"):
        D.train(jaxc, "mlp", synthetic, batch=10 ** 4, progress=False, log=None)


def test_main_on_synthetic_data_writes_the_plot(tmp_path, capsys):
    png = tmp_path / "curves.png"
    assert D.main(["--model", "mlp", "--epochs", "2", "--synthetic", "--no-progress", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "epoch   2  train loss" in out and "final test accuracy" in out
    if importlib.util.find_spec("matplotlib") is not None:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert "matplotlib is not installed" in out


def test_digits_from_scikit_learn():
    pytest.importorskip("sklearn")
    data = D.load_digits()
    assert len(data.x_train) + len(data.x_test) == 1797
    assert len(data.x_test) == 359 and data.x_train.shape[1:] == (8, 8, 1)
    assert data.x_train.max() == 1.0 and data.x_train.min() == 0.0
    assert np.array_equal(np.bincount(data.y_test), np.round(0.2 * np.bincount(np.concatenate(
        [data.y_train, data.y_test]))).astype(int))
    _, hist = D.train(jaxc, "mlp", data, epochs=2, progress=False, log=None)
    assert hist.loss[1] < hist.loss[0]
    assert hist.accuracy[-1] > 0.75, hist.accuracy

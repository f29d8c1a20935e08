"""The same sweeps give the same engine model on any machine: BLAS kernels and numpy's vector exp/log differ by CPU
in the last bits, and the fit must not let those bits choose its result (docs/calibrated-model.md, "Reproducible")."""

import os
import subprocess
import sys

import numpy as np

from assets.calibrate.fit import _pack, _unpack
from assets.calibrate.fit_start import nnls
from tests.support.data import REPO_ROOT
from tests.unit.test_calibrate_fit import TRUTH as BASE


def test_a_point_of_the_fit_a_few_bits_away_is_the_same_engine():
    x = _pack(BASE)
    nudged = x + np.asarray([3e-16, -5e-16, 2e-16, 1e-15, -1e-15])
    assert _unpack(BASE, nudged) == _unpack(BASE, x)


def test_collinear_columns_choose_the_same_active_set_whatever_the_last_bits():
    # one token mix: the prompt column is the answer column scaled, so (b0, b1, c) and (b0, b2, c) fit equally
    prompt = np.asarray([200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0])
    answer = prompt / 10.0
    A = np.column_stack([np.ones(6), prompt, answer, np.ones(6) * 0.5])
    y = 8.0 + 0.03 * prompt + np.asarray([0.01, -0.02, 0.015, 0.0, -0.01, 0.005])
    chosen = {tuple(nnls(A, y * (1 + eps)) > 0) for eps in (0.0, 2e-16, -2e-16, 4e-16, -4e-16)}
    assert len(chosen) == 1


# one workload's sweep simulated from known step costs (as tests/unit/test_calibrate_fit.py builds it), fitted, and
# every fitted figure printed in full
FIT_SCRIPT = """
from tests.unit.test_calibrate_fit import _level, config_key, Config, calibrate
settings = {"max_num_seqs": 256, "max_num_batched_tokens": 8192}
key = config_key("nvidia-h100-sxm-80gb", 1, "llama-3.1-8b", "bf16", "vLLM", "0.11.0", settings)
cfg = Config(key, "synthetic", "vLLM", "0.11.0", settings, "nvidia-h100-sxm-80gb", 1, "llama-3.1-8b", "bf16")
cfg.levels = [_level(key, "one", i, rate, 900, 120) for i, rate in enumerate((1, 4, 8, 12, 16, 24))]
fit = calibrate(cfg)
print(repr(fit.params), repr(sorted(fit.in_sample.items())))
"""


def _fit_in_a_process(extra_env: dict[str, str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **extra_env}
    done = subprocess.run(
        [sys.executable, "-c", FIT_SCRIPT], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_fit_is_the_same_bit_for_bit_with_another_blas_kernel():
    # Prescott: OpenBLAS's SSE3 kernels, which sum in another order than the AVX2 or AVX-512 ones this machine picks
    assert _fit_in_a_process({"OPENBLAS_CORETYPE": "Prescott"}) == _fit_in_a_process({})

#!/usr/bin/python3
# fit: the polynomial coefficients of vmath.h, by weighted least squares
# on Chebyshev points of each reduced range, weighted for relative
# error, then a few Lawson rounds (reweighting by the error) toward
# minimax; prints each set rounded to float, with the largest relative
# error of the float coefficients evaluated in double.
# Usage: /usr/bin/python3 common/rt/f32-vmath/fit.py
import math
import numpy as np


def fit(g, w, lo, hi, deg, rounds=40):
    """Coefficients c[0..deg] (floats) of q with q(t) ~ g(t), minimising
    max |w(t) (q(t) - g(t))| over [lo, hi]."""
    k = np.arange(4000)
    t = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / 4000)
    G = np.array([g(v) for v in t])
    W = np.array([w(v) for v in t])
    A = np.vander(t, deg + 1, increasing=True)
    lw = np.ones_like(t)
    for _ in range(rounds):
        s = np.sqrt(lw) * W
        c, *_ = np.linalg.lstsq(A * s[:, None], G * s, rcond=None)
        e = np.abs(W * (A @ c - G))
        lw = lw * e
        lw /= lw.sum()
    c = np.float32(c).astype(np.float64)
    return c, np.max(np.abs(W * (A @ c - G)))


def show(name, c, err):
    print(f"{name}: max weighted error {err:.3g}")
    for i, v in enumerate(c):
        print(f"\t{np.float32(v).item():.9e}f,\t/* c{i} */")


LN2H = math.log(2) / 2
# exp(r) = 1 + r + r^2 q(r), |r| <= ln2 / 2
show("exp", *fit(lambda r: (math.expm1(r) - r) / (r * r) if r else 0.5,
    lambda r: r * r / math.exp(r), -LN2H, LN2H, 4))
# log(1 + f) = f - f^2 / 2 + f^3 q(f), f in [sqrt(1/2) - 1, sqrt(2) - 1]
show("log", *fit(lambda f: (math.log1p(f) - f + f * f / 2) / f ** 3
    if abs(f) > 1e-6 else 1 / 3 - f / 4,
    lambda f: abs(f) ** 3 / abs(math.log1p(f)) if f else 1,
    math.sqrt(0.5) - 1, math.sqrt(2) - 1, 7))
# tanh(x) = x + x^3 q(x^2), |x| < 0.625
show("tanh", *fit(lambda u: (math.tanh(math.sqrt(u)) - math.sqrt(u)) /
    u ** 1.5 if u > 1e-8 else -1 / 3,
    lambda u: u / (1 - u / 3), 0, 0.625 ** 2, 5))
# erf(x) = x q(x^2), |x| < 1
show("erf", *fit(lambda u: math.erf(math.sqrt(u)) / math.sqrt(u)
    if u > 1e-12 else 2 / math.sqrt(math.pi),
    lambda u: 1, 0, 1, 6))
# erfc(x) = exp(-x^2) q(1 / x - 0.5) / x, x in [1, 14.2] (centred, so
# that float Horner sums do not cancel)
show("erfc", *fit(lambda w: math.erfc(1 / (w + 0.5)) *
    math.exp(1 / (w + 0.5) ** 2) / (w + 0.5),
    lambda w: 1, 1 / 14.2 - 0.5, 0.5, 11))
# 1 + erf(x / sqrt 2) = q(x + 1.0607), x in [-sqrt 2, -sqrt(1/2)]
# (GELU's negative side, where 1 + erf would cancel)
show("gelu-mid", *fit(lambda w: math.erfc(-(w - 1.0607) / math.sqrt(2)),
    lambda w: 1 / math.erfc(-(w - 1.0607) / math.sqrt(2)),
    -math.sqrt(2) + 1.0607, -math.sqrt(0.5) + 1.0607, 9))

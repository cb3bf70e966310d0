"""cases: one or more cases per WebNN op, with its reference; and the
invalid graphs shape inference must refuse.  Read by run.py."""
import numpy as np

import refs
from run import case, invalid

f32, f16, i32, u32, i64, u8, i8, u64 = ("float32", "float16", "int32",
                                         "uint32", "int64", "uint8", "int8",
                                         "uint64")


def x(shape, dt=f32, kind="n", name="x"):
    return (name, dt, shape, kind)


def ab(sa, sb, dt=f32, kb="n"):
    return [("a", dt, sa, "n"), ("b", dt, sb, kb)]


# Each group below says which wrong twin of the right kernel its data
# rules out; a twin that survives is a hole (tests/ops/mutate.py plants
# such twins and expects these cases to fail).
NAN, INF = float("nan"), float("inf")

# ---- binary, with broadcasting and types ----
# Random operands of different shapes, negative and positive: a kernel
# that swaps its operands (sub, div, pow), computes the other op (max
# for min) or reads a broadcast operand through the wrong strides
# gives other values.
BIN = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
       "max": np.maximum, "min": np.minimum}
for op, fn in BIN.items():
    case(op + "-broadcast", op, ab([2, 3, 4], [3, 1]),
         ref=lambda a, c, fn=fn: fn(a["a"], a["b"]))
    case(op + "-int32", op, ab([5], [5], i32),
         ref=lambda a, c, fn=fn: fn(a["a"], a["b"]))
# A scalar a channel over rows of 3 x 7 (a squeeze-and-excitation's
# x * s[c]), in vectors and a tail: the contiguous operand first, and
# second (sub and div are not symmetric); max with the NaN of one row.
for op, fn in list(BIN.items()) + [("div", np.divide)]:
    case(op + "-rows", op, ab([2, 5, 3, 7], [5, 1, 1],
                              kb="pos" if op == "div" else "n"),
         ref=lambda a, c, fn=fn: fn(a["a"], a["b"]))
    case(op + "-rows-first", op, [("a", f32, [1, 5, 1, 1],
                                   "pos" if op == "div" else "n"),
                                  ("b", f32, [1, 5, 4, 5],
                                   "pos" if op == "div" else "n")],
         ref=lambda a, c, fn=fn: fn(a["a"], a["b"]))
# The broadcast shapes of convolutional and transformer models, rows
# long enough for whole vectors and a ragged tail (37, 19 floats): a
# channel's value over its image ([1, C, H, W] * [1, C, 1, 1]), a row
# over rows ([1, H, W, C] * [C], [B, N, D] + [D]), a column against a
# row (both operands broadcast), a value in front, and an axis of 1
# between broadcast ones (merged wrongly, the strides go astray).
BCAST = [("nchw-channel", "mul", [1, 5, 3, 37], [1, 5, 1, 1]),
         ("nhwc-row", "mul", [1, 2, 3, 19], [19]),
         ("bnd-row", "add", [2, 3, 37], [37]),
         ("col-row", "sub", [4, 1, 1], [1, 19]),
         ("scalar-first", "div", [], [3, 37]),
         ("middle", "max", [2, 1, 3, 19], [2, 5, 1, 19]),
         ("outer", "min", [3, 1, 37], [1, 2, 37])]
for name, op, sa, sb in BCAST:
    case(op + "-broadcast-" + name, op, ab(sa, sb, kb="pos"),
         ref=lambda a, c, fn={"div": np.divide, **BIN}[op]:
         fn(a["a"], a["b"]))
case("div-broadcast", "div", ab([2, 3], [3], kb="pos"),
     ref=lambda a, c: a["a"] / a["b"])
# negative quotients with a remainder: truncation toward zero, not
# floor division nor rounding (-7 / 2 is -3, floor -4, rounded -4)
case("div-int32", "div",
     [("a", i32, [8], [7, -7, 7, -7, 9, -50, 0, 1]),
      ("b", i32, [8], [2, 2, -2, -2, 3, 7, 5, -3])],
     ref=lambda a, c: np.trunc(a["a"] / a["b"]).astype(np.int32))
case("pow-float", "pow", [("a", f32, [4], "pos"), ("b", f32, [4], "n")],
     ref=lambda a, c: np.power(a["a"], a["b"]))
# pow by one broadcast exponent (common/rt/f32-vmath: products, square
# roots, else exp of the exponent times log): a negative base keeps its
# sign with an odd exponent, loses it with an even one and gives NaN
# with a fraction; zeros, infinities and NaN as C's pow has them
POWV = [-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 2.0, 3.7, 1e-3, 1e3, INF, -INF,
        NAN, 17.25, -3.0]
for e, nm in [(2, "2"), (3, "3"), (-1, "m1"), (0.5, "half"),
              (-0.5, "mhalf"), (2.5, "2_5"), (7, "7"), (-3, "m3"),
              (1 / 3, "third")]:
    case("pow-scalar-" + nm, "pow",
         [("a", f32, [15], POWV), ("b", f32, [], [e])],
         ref=lambda a, c: np.power(a["a"].astype(np.float64),
                                   a["b"].astype(np.float64)))
case("add-float16", "add", ab([3, 2], [2], f16),
     ref=lambda a, c: (a["a"] + a["b"]).astype(np.float16))
# int64 sums beyond 2^53: exact, not through double
case("add-int64", "add",
     [("a", i64, [4], [2 ** 60 + 1, -(2 ** 60) - 3, 2 ** 53 + 1, -7]),
      ("b", i64, [1], [2 ** 53 + 3])], ref=lambda a, c: a["a"] + a["b"])
# uint64 above 2^63: compared unsigned, not as int64
case("min-uint64", "min",
     [("a", u64, [4], [2 ** 63 + 5, 3, 2 ** 64 - 1, 0]),
      ("b", u64, [4], [7, 2 ** 63, 1, 2 ** 63 + 1])],
     ref=lambda a, c: np.minimum(a["a"], a["b"]))
case("max-uint64", "max",
     [("a", u64, [4], [2 ** 63 + 5, 3, 2 ** 64 - 1, 0]),
      ("b", u64, [4], [7, 2 ** 63, 1, 2 ** 63 + 1])],
     ref=lambda a, c: np.maximum(a["a"], a["b"]))
# products past 255 wrap
case("mul-uint8", "mul", ab([4], [4], u8), ref=lambda a, c:
     (a["a"].astype(np.int64) * a["b"]).astype(np.uint8))
case("add-scalar", "add", ab([2, 2], []), ref=lambda a, c: a["a"] + a["b"])

# ---- comparisons and logic: uint8 results ----
# Ties, less and greater in one broadcast pair: > is not >=, == is not
# <=, and swapped operands give other values.
CMP = {"equal": np.equal, "notEqual": np.not_equal, "greater": np.greater,
       "greaterOrEqual": np.greater_equal, "lesser": np.less,
       "lesserOrEqual": np.less_equal}
CMPA = [[-1, 0, 1, 2], [2, 1, 0, -1], [0, 0, 5, -5]]
CMPB = [-1, 0, 1, 2]
# NaN against anything is false but for notEqual (so greaterOrEqual is
# not logicalNot(lesser)), -0 equals +0 (not a comparison of bits),
# infinities equal themselves
CMPF = [[NAN, 1, NAN, -0.0, 0.0, INF, -INF, 1.5, -2, 3]]
CMPG = [[1, NAN, NAN, 0.0, -0.0, INF, INF, 1.5, 3, -2]]
for op, fn in CMP.items():
    case(op, op, [("a", i32, [3, 4], CMPA), ("b", i32, [4], CMPB)],
         ref=lambda a, c, fn=fn: fn(a["a"], a["b"]).astype(np.uint8))
    case(op + "-float", op, [("a", f32, [10], CMPF), ("b", f32, [10], CMPG)],
         ref=lambda a, c, fn=fn: fn(a["a"], a["b"]).astype(np.uint8))
# Logical ops treat any nonzero uint8 as true and give 0 or 1 (WebNN):
# every pair of 0, 1, 2, 3, 128 and 255 rules out the bitwise twins
# (2 & 1 is 0, 2 | 1 and 2 ^ 1 are 3, ~2 is 253) and those that test
# only bit 0 or only == 1.
LOGV = [0, 1, 2, 3, 128, 255]
LOG = {"logicalAnd": np.logical_and, "logicalOr": np.logical_or,
       "logicalXor": np.logical_xor}
for op, fn in LOG.items():
    case(op, op, [("a", u8, [6, 6], [[v] * 6 for v in LOGV]),
                  ("b", u8, [6], LOGV)],
         ref=lambda a, c, fn=fn: fn(a["a"], a["b"]).astype(np.uint8))
case("logicalNot", "logicalNot", [("a", u8, [6], LOGV)],
     ref=lambda a, c: (a["a"] == 0).astype(np.uint8))
# NaN of either sign, both infinities, zeros of both signs, the largest
# finite and a subnormal: isNaN is not x != x made false, isInfinite
# sees -Inf and is not !isfinite
SPECIAL = [NAN, -NAN, INF, -INF, 0.0, -0.0, 1.5, -3e38, 1e-45, 3.4e38]
case("isNaN", "isNaN", [("a", f32, [10], SPECIAL)],
     ref=lambda a, c: np.isnan(a["a"]).astype(np.uint8))
case("isInfinite", "isInfinite", [("a", f32, [10], SPECIAL)],
     ref=lambda a, c: np.isinf(a["a"]).astype(np.uint8))
SPECIAL16 = [NAN, INF, -INF, 0.0, 65504, -1]
case("isNaN-float16", "isNaN", [("a", f16, [6], SPECIAL16)],
     ref=lambda a, c: np.isnan(a["a"]).astype(np.uint8))
case("isInfinite-float16", "isInfinite", [("a", f16, [6], SPECIAL16)],
     ref=lambda a, c: np.isinf(a["a"]).astype(np.uint8))

# ---- unary ----
# Random data for the smooth functions (sin is not cos, erf not tanh,
# exp not expm1); for the rest, values chosen to part each from its
# twins, listed with each.
UN = {"cos": np.cos, "erf": refs.erf, "exp": np.exp, "identity": lambda v: v,
      "neg": np.negative, "sin": np.sin, "tan": np.tan}
for op, fn in UN.items():
    case(op, op, [x([2, 3], kind="unit")], ref=lambda a, c, fn=fn: fn(a["x"]))
# abs of -Inf, NaN and -0 (not x < 0 ? -x : x with NaN lost)
case("abs", "abs", [x([10], kind=[-2.5, 2.5, -0.0, 0.0, -INF, INF, NAN,
                                  -7.25, 1e-3, -1e30])],
     ref=lambda a, c: np.abs(a["x"]))
# negatives with fractions, integers, halves, beyond (-1, 1) and the
# specials: floor is not trunc (-2.5), ceil not round (0.3)
ROUNDV = [-2.5, -2.0, -1.7, -0.5, -0.0, 0.3, 1.0, 1.7, 2.5, 4194304.5,
          -4194303.5, INF, -INF, NAN]
case("ceil", "ceil", [x([14], kind=ROUNDV)], ref=lambda a, c: np.ceil(a["x"]))
case("floor", "floor", [x([14], kind=ROUNDV)],
     ref=lambda a, c: np.floor(a["x"]))
# the specification's example, then halves of both signs: ties go to
# even (2.5 is 2, -2.5 is -2, -3.5 is -4), not away from zero nor up
case("roundEven", "roundEven",
     [x([20], kind=[0.1, 0.9, 1.1, 1.9, -3.5, -2.5, -1.5, 1.5, 2.5, 3.5,
                    -0.5, 0.5, -0.4, 0.6, 4194304.5, -4194303.5, 7.5,
                    INF, -INF, NAN])],
     ref=lambda a, c: refs.roundeven(a["x"]))
# 0 of both signs gives 0 (not 1, not 0/0); tiny values keep their sign
case("sign", "sign",
     [x([8], kind=[-2.5, 0.0, -0.0, 3.0, INF, -INF, 1e-30, -1e-30])],
     ref=lambda a, c: np.sign(a["x"]))
# 1/+0 is +Inf, 1/-0 -Inf
case("reciprocal", "reciprocal", [x([6], kind=[0.5, -4, 0.0, -0.0, 3, -INF])],
     ref=lambda a, c: 1 / a["x"])
# log of 0 is -Inf, of 1 is 0: not log1p, log2 or log10
case("log", "log", [x([7], kind=[0.5, 1.0, 2.0, 10.0, 1e-3, 0.0, INF])],
     ref=lambda a, c: np.log(a["x"]))
case("sqrt", "sqrt", [x([6], kind=[0.0, 0.25, 2.0, 100.0, INF, 1e-6])],
     ref=lambda a, c: np.sqrt(a["x"]))
case("abs-int32", "abs", [x([5], i32)], ref=lambda a, c: np.abs(a["x"]))
case("neg-int8", "neg", [x([5], i8)], ref=lambda a, c: -a["x"])
case("sign-int32", "sign", [x([5], i32, [-7, 0, 3, -1, 50])],
     ref=lambda a, c: np.sign(a["x"]))
case("exp-float16", "exp", [x([4], f16, "unit")],
     ref=lambda a, c: np.exp(a["x"]).astype(np.float16))

# ---- activations ----
# Normal data has both signs (leakyRelu's and elu's slope only below
# 0, relu not leaky); the clamping ones get values past each bound.
sig = lambda v: 1 / (1 + np.exp(-v))
case("relu", "relu", [x([3, 4])], ref=lambda a, c: np.maximum(a["x"], 0))
case("relu-int32", "relu", [x([6], i32)], ref=lambda a, c: np.maximum(a["x"], 0))
case("sigmoid", "sigmoid", [x([7])], ref=lambda a, c: sig(a["x"]))
case("tanh", "tanh", [x([7])], ref=lambda a, c: np.tanh(a["x"]))
case("elu", "elu", [x([7])], {"alpha": 0.5},
     ref=lambda a, c: np.where(a["x"] >= 0, a["x"], 0.5 * np.expm1(a["x"])))
case("gelu", "gelu", [x([7])],
     ref=lambda a, c: 0.5 * a["x"] * (1 + refs.erf(a["x"] / np.sqrt(2))))
# 0.3 x + 0.4 below 0 (x < -4/3) and above 1 (x > 2); alpha and beta
# swapped give other values
case("hardSigmoid", "hardSigmoid",
     [x([9], kind=[-5, -2, -1.34, -1.0, 0, 0.5, 1.9, 2.1, 4])],
     {"alpha": 0.3, "beta": 0.4},
     ref=lambda a, c: np.clip(0.3 * a["x"] + 0.4, 0, 1))
case("hardSwish", "hardSwish",
     [x([9], kind=[-5, -3.5, -3, -1, 0, 1.5, 2.9, 3.1, 6])],
     ref=lambda a, c: a["x"] * np.clip(a["x"] + 3, 0, 6) / 6)
case("leakyRelu", "leakyRelu", [x([7])], {"alpha": 0.1},
     ref=lambda a, c: np.where(a["x"] >= 0, a["x"], 0.1 * a["x"]))
case("linear", "linear", [x([7])], {"alpha": 2, "beta": -1},
     ref=lambda a, c: 2 * a["x"] - 1)
# large inputs on both sides: softplus(x) is x only where log1p(e^-x)
# is below float precision
case("softplus", "softplus",
     [x([9], kind=[-40, -5, -1, 0, 0.5, 5, 12, 20, 40])],
     ref=lambda a, c: np.logaddexp(0, a["x"]))
case("softsign", "softsign", [x([7])],
     ref=lambda a, c: a["x"] / (1 + np.abs(a["x"])))
# values below, at, between and above both bounds: bounds swapped or
# one side only give other values
case("clamp", "clamp", [x([8], kind=[-2, -0.5, -0.4, 0, 0.2, 0.25, 0.3, 5])],
     {"minValue": -0.5, "maxValue": 0.25},
     ref=lambda a, c: np.clip(a["x"], -0.5, 0.25))
case("clamp-int32", "clamp", [x([8], i32, [-50, -4, -3, -2, 0, 6, 7, 8])],
     {"minValue": -3, "maxValue": 7},
     ref=lambda a, c: np.clip(a["x"], -3, 7))
case("prelu", "prelu", [x([2, 3, 4]), ("slope", f32, [4], "n")],
     ref=lambda a, c: np.where(a["x"] >= 0, a["x"], a["x"] * a["slope"]))
case("softmax-axis1", "softmax", [x([2, 5, 3])], {"axis": 1},
     ref=lambda a, c: np.exp(a["x"]) / np.exp(a["x"]).sum(1, keepdims=True))
# exp of +-1000 overflows or underflows without the maximum taken out
case("softmax-large", "softmax",
     [x([2, 4], kind=[1000, 1001, 999, 990, -1000, -1001, -999, -990])],
     {"axis": 1},
     ref=lambda a, c: np.exp(a["x"] - a["x"].max(1, keepdims=True)) /
     np.exp(a["x"] - a["x"].max(1, keepdims=True)).sum(1, keepdims=True))


def _softmax(v, ax):
    v = v.astype(np.float64)
    e = np.exp(v - v.max(ax, keepdims=True))
    return e / e.sum(ax, keepdims=True)


# the float16 path (one element at a time) with the same data
case("softmax-large-float16", "softmax",
     [x([2, 4], f16, kind=[10000, 10001, 9999, 9990, -10000, -10001, -9999,
                           -9990])],
     {"axis": 1}, ref=lambda a, c: _softmax(a["x"], 1).astype(np.float16))
# Rows of odd lengths (vectors and a ragged tail), and columns: the
# axis in the middle, inner 19 (vectors across it and three left over);
# +-3000 around an offset: exp overflows without the maximum taken out.
case("softmax-row-odd", "softmax", [x([3, 2, 197])], {"axis": 2},
     ref=lambda a, c: _softmax(a["x"], 2))
case("softmax-cols-odd", "softmax", [x([2, 11, 19])], {"axis": 1},
     ref=lambda a, c: _softmax(a["x"], 1))
case("softmax-cols-large", "softmax",
     [x([3, 5, 17], kind=(np.sin(np.arange(255.0)) * 3000 +
                          np.arange(255.0)).reshape(3, 5, 17))],
     {"axis": 1}, ref=lambda a, c: _softmax(a["x"], 1))
case("softmax-row-large", "softmax",
     [x([2, 37], kind=(np.cos(np.arange(74.0)) * 3000 -
                       5000).reshape(2, 37))],
     {"axis": 1}, ref=lambda a, c: _softmax(a["x"], 1))

# ---- cast, where, quantization ----
# Float to integer truncates toward zero (WebNN's cast table: "if in
# range, truncated"): -2.7 is -2, not -3 (floor, rounding), halves of
# both signs, beyond int8 and int32; integer to integer keeps the low
# bits (300 to uint8 is 44, 200 to int8 is -56); to float rounds to
# nearest even (2049 to float16 is 2048, 2051 2052) and overflows to
# Inf.  Out-of-range float to integer is implementation-defined: not
# tested.
case("cast-f32-i32", "cast",
     [x([12], f32, [-2.7, 2.7, -0.5, 0.5, -1.5, 1.5, -99.99, 99.99, 0.0,
                    -0.0, 3000000.75, -123456.5])], {"dataType": "int32"},
     ref=lambda a, c: np.trunc(a["x"]).astype(np.int32))
case("cast-f32-u8", "cast",
     [x([8], f32, [0.0, 0.9, 1.5, 127.9, 128.5, 200.2, 254.99, 255.0])],
     {"dataType": "uint8"}, ref=lambda a, c: np.trunc(a["x"]).astype(
         np.uint8))
case("cast-f32-i64", "cast",
     [x([5], f32, [3.2e9, -5.1e9, -2.5, 7.9, 1e15])], {"dataType": "int64"},
     ref=lambda a, c: np.trunc(a["x"]).astype(np.int64))
case("cast-f16-i8", "cast",
     [x([6], f16, [-100.5, 100.5, -2.75, 2.75, 0.5, -0.5])],
     {"dataType": "int8"}, ref=lambda a, c: np.trunc(a["x"]).astype(np.int8))
case("cast-i32-f16", "cast",
     [x([8], i32, [-7, 0, 50, 2049, 2051, -2051, 65504, 70000])],
     {"dataType": "float16"}, ref=lambda a, c: a["x"].astype(np.float16))
case("cast-f32-f16", "cast",
     [x([8], f32, [0.1, 1 / 3, 65504, 65520, -70000, 2049, 2051, 1e-8])],
     {"dataType": "float16"}, ref=lambda a, c: a["x"].astype(np.float16))
case("cast-u32-f32", "cast",
     [x([4], u32, [2 ** 32 - 1, 2 ** 31, 16777217, 3])],
     {"dataType": "float32"}, ref=lambda a, c: a["x"].astype(np.float32))
case("cast-u64-f32", "cast",
     [x([3], u64, [2 ** 64 - 1, 2 ** 63, 5])],
     {"dataType": "float32"}, ref=lambda a, c: a["x"].astype(np.float32))
case("cast-i32-u8", "cast", [x([6], i32, [300, -1, 255, 256, -200, 5])],
     {"dataType": "uint8"}, ref=lambda a, c: a["x"].astype(np.uint8))
case("cast-i32-i8", "cast", [x([6], i32, [200, -129, 127, 128, -5, 1000])],
     {"dataType": "int8"}, ref=lambda a, c: a["x"].astype(np.int8))
case("cast-i64-i32", "cast",
     [x([4], i64, [2 ** 32 + 5, -(2 ** 31) - 1, 2 ** 40, 7])],
     {"dataType": "int32"}, ref=lambda a, c: a["x"].astype(np.int32))
# uint8 over its whole range: zero-extended, not sign-extended
case("cast-u8-i64", "cast", [x([6], u8, "full")], {"dataType": "int64"},
     ref=lambda a, c: a["x"].astype(np.int64))
# a condition of any nonzero value is true (not only 1)
case("where", "where", [("c", u8, [2, 1, 3], [0, 2, 255, 0, 1, 128]),
                        ("t", f32, [4, 1], "n"), ("f", f32, [3], "n")],
     ref=lambda a, c: np.where(a["c"] != 0, a["t"], a["f"]))
# x / scale at ties of both signs (2.5 is 2, -2.5 is -2: half to even,
# not away from zero) and past both ends of uint8 (saturated, not
# wrapped); the zero points differ per column
case("quantizeLinear", "quantizeLinear",
     [x([2, 4], kind=[0.25, 0.125, 2.5, 3.0, -0.75, 0.375, -2.5, 500]),
      ("s", f32, [4], [0.5, 0.25, 1.0, 2.0]),
      ("z", u8, [4], [0, 10, 128, 255])],
     ref=lambda a, c: np.clip(np.round(a["x"] / a["s"]) + a["z"], 0,
                              255).astype(np.uint8))
case("quantizeLinear-int8", "quantizeLinear",
     [x([4], kind=[2.5, -2.5, 300, -300]), ("s", f32, [4], [1, 1, 1, 1]),
      ("z", i8, [4], [0, 0, 10, -10])],
     ref=lambda a, c: np.clip(np.round(a["x"] / a["s"]) + a["z"], -128,
                              127).astype(np.int8))
case("dequantizeLinear", "dequantizeLinear",
     [("q", i8, [2, 4], "n"), ("s", f32, [2, 2], "pos"), ("z", i8, [2, 2], "n")],
     ref=lambda a, c: (a["q"].astype(np.float64) -
                       np.repeat(a["z"], 2, 1)) * np.repeat(a["s"], 2, 1))

# ---- cumulativeSum, triangular, expand, tile, reverse ----
# Random distinct values: a sum along the wrong axis or direction, a
# diagonal off by one, a repetition or reversal of the wrong axis each
# moves some value.
case("cumulativeSum", "cumulativeSum", [x([3, 4])], {"axis": 1},
     ref=lambda a, c: np.cumsum(a["x"], 1))
case("cumulativeSum-exclusive-reversed", "cumulativeSum", [x([5], i32)],
     {"axis": 0, "exclusive": True, "reversed": True},
     ref=lambda a, c: np.concatenate([np.cumsum(a["x"][::-1])[::-1][1:],
                                      [0]]).astype(np.int32))
# exclusive without reversed and the two together: neither flag read
# for the other
case("cumulativeSum-exclusive", "cumulativeSum", [x([4, 3])],
     {"axis": 0, "exclusive": True},
     ref=lambda a, c: np.cumsum(a["x"], 0) - a["x"])
case("triangular-upper", "triangular", [x([2, 3, 4])], {"diagonal": 1},
     ref=lambda a, c: np.triu(a["x"], 1))
case("triangular-lower", "triangular", [x([4, 4])],
     {"upper": False, "diagonal": -1}, ref=lambda a, c: np.tril(a["x"], -1))
case("expand", "expand", [x([3, 1])], {"newShape": [2, 3, 4]},
     ref=lambda a, c: np.broadcast_to(a["x"], (2, 3, 4)))
case("tile", "tile", [x([2, 3])], {"repetitions": [2, 1]},
     ref=lambda a, c: np.tile(a["x"], (2, 1)))
case("reverse", "reverse", [x([2, 3, 4])], {"axes": [0, 2]},
     ref=lambda a, c: a["x"][::-1, :, ::-1])

# ---- data movement ----
# Random distinct values, so any element taken from the wrong place
# shows; indices negative as well as positive (counted from the end,
# not clamped to 0), and scatter indices distinct and out of order
# (not written in update order).
case("reshape", "reshape", [x([2, 6])], {"newShape": [3, 2, 2]},
     ref=lambda a, c: a["x"].reshape(3, 2, 2))
case("transpose", "transpose", [x([2, 3, 4])], {"permutation": [2, 0, 1]},
     ref=lambda a, c: a["x"].transpose(2, 0, 1))
case("transpose-default", "transpose", [x([2, 3])],
     ref=lambda a, c: a["x"].T)
# The blocked transpose (rt/tensor/tensor.c): axes of one element
# dropped and neighbours merged (NHWC <-> NCHW as one plane, attention's
# [B, N, H, D] -> [B, H, N, D] rows of D), planes of 4-byte elements at
# least a vector each way in vector blocks with ragged edges, and the
# other sizes in tiles; odd sizes, every type size, ranks 1 to 6.
for shape, perm, dt in [
        ([1, 9, 7, 33], [0, 3, 1, 2], f32),
        ([1, 33, 9, 7], [0, 2, 3, 1], f32),
        ([1, 5, 5, 19], [0, 3, 1, 2], f32),
        ([2, 17, 3, 20], [0, 2, 1, 3], f32),
        ([2, 19, 5, 17], [0, 2, 3, 1], f32),
        ([3, 1, 37, 18], [3, 1, 2, 0], f32),
        ([31, 47], [1, 0], f32), ([16, 16], [1, 0], f32), ([7], [0], f32),
        ([2, 3, 1, 4, 5, 6], [5, 2, 0, 4, 1, 3], f32),
        ([2, 3, 4, 5, 6], [1, 2, 0, 4, 3], f32), ([4, 5, 6], [0, 1, 2], f32),
        ([5, 23, 18], [2, 1, 0], f16), ([6, 17, 19], [1, 2, 0], i64),
        ([3, 21, 25], [0, 2, 1], u8), ([4, 9, 20], [2, 0, 1], i32)]:
    case("transpose-%s-%s-%s" % ("x".join(map(str, shape)),
                                "".join(map(str, perm)), dt), "transpose",
         [x(shape, dt)], {"permutation": perm},
         ref=lambda a, c, perm=perm: a["x"].transpose(perm))
case("slice-strided", "slice", [x([5, 6])],
     {"starts": [1, 0], "sizes": [4, 5], "strides": [2, 3]},
     ref=lambda a, c: a["x"][1:5:2, 0:5:3])
# runs copied whole: a cut of the last axis, a cut after whole last
# axes, a strided axis over whole rows, and other element sizes
case("slice-lastcut", "slice", [x([4, 1, 9])],
     {"starts": [0, 0, 3], "sizes": [4, 1, 3]},
     ref=lambda a, c: a["x"][:, :, 3:6])
case("slice-midcut", "slice", [x([3, 4, 5])],
     {"starts": [1, 1, 0], "sizes": [2, 2, 5]},
     ref=lambda a, c: a["x"][1:3, 1:3, :])
case("slice-rowstep", "slice", [x([3, 7, 4])],
     {"starts": [0, 1, 0], "sizes": [3, 6, 4], "strides": [1, 2, 1]},
     ref=lambda a, c: a["x"][:, 1:7:2, :])
case("slice-cut-i64", "slice", [x([5, 6], i64)],
     {"starts": [2, 1], "sizes": [3, 4]},
     ref=lambda a, c: a["x"][2:5, 1:5])
case("slice-cut-f16", "slice", [x([2, 3, 8], f16)],
     {"starts": [0, 2, 0], "sizes": [2, 1, 8]},
     ref=lambda a, c: a["x"][:, 2:3, :])
case("split-even", "split", [x([2, 6])], {"splits": 3, "axis": 1}, nout=3,
     ref=lambda a, c: list(np.split(a["x"], 3, 1)))
case("split-sizes", "split", [x([5, 2])], {"splits": [1, 4]}, nout=2,
     ref=lambda a, c: [a["x"][:1], a["x"][1:]])
case("concat", "concat", [("p", f32, [2, 1, 3], "n"), ("q", f32, [2, 2, 3], "n")],
     {"axis": 1}, ref=lambda a, c: np.concatenate([a["p"], a["q"]], 1))
case("gather-axis1", "gather",
     [x([3, 4, 2]), ("i", i32, [2, 2], [[-1, 2], [0, -4]])],
     {"axis": 1}, ref=lambda a, c: np.take(a["x"], np.where(
         a["i"] < 0, a["i"] + 4, a["i"]), 1))
case("gather-int64-index", "gather", [x([5]), ("i", i64, [3], [-5, 4, -2])],
     ref=lambda a, c: np.take(a["x"], np.where(a["i"] < 0, a["i"] + 5,
                                               a["i"])))
case("gatherElements", "gatherElements", [x([3, 4]), ("i", i32, [2, 4],
                                                       "uidx:3")],
     ref=lambda a, c: np.take_along_axis(a["x"], a["i"], 0))
case("gatherND", "gatherND", [x([3, 4, 2]), ("i", i32, [2, 2], "uidx:3")],
     ref=lambda a, c: refs.gather_nd(a["x"], a["i"]))
case("scatterElements", "scatterElements",
     [x([3, 3]), ("i", i32, [1, 3], [[2, 0, 1]]), ("u", f32, [1, 3], "n")],
     {"axis": 0}, ref=lambda a, c: _scatter_el(a))
case("scatterND", "scatterND",
     [x([4, 3]), ("i", i32, [2, 1], [[2], [0]]), ("u", f32, [2, 3], "n")],
     ref=lambda a, c: refs.scatter_nd(a["x"], a["i"], a["u"]))


def _scatter_el(a):
    y = a["x"].copy()
    for j in range(3):
        y[a["i"][0, j], j] = a["u"][0, j]
    return y


# ---- reductions ----
# Normal data of both signs: L1 is not the sum, max not min, L2 not
# the sum of squares; axes [0, 2] of three (not [0, 1]).
RED = {"reduceSum": lambda v, ax, k: v.sum(ax, keepdims=k),
       "reduceMean": lambda v, ax, k: v.mean(ax, keepdims=k),
       "reduceMax": lambda v, ax, k: v.max(ax, keepdims=k),
       "reduceMin": lambda v, ax, k: v.min(ax, keepdims=k),
       "reduceProduct": lambda v, ax, k: v.prod(ax, keepdims=k),
       "reduceL1": lambda v, ax, k: np.abs(v).sum(ax, keepdims=k),
       "reduceL2": lambda v, ax, k: np.sqrt((v * v).sum(ax, keepdims=k)),
       "reduceSumSquare": lambda v, ax, k: (v * v).sum(ax, keepdims=k),
       "reduceLogSumExp": lambda v, ax, k: np.log(np.exp(v).sum(ax,
                                                               keepdims=k))}
for op, fn in RED.items():
    case(op, op, [x([2, 3, 4])], {"axes": [0, 2], "keepDimensions": True},
         ref=lambda a, c, fn=fn: fn(a["x"], (0, 2), True))
# trailing axes (a global pool): outputs four at a time and the rest,
# blocks of 15 floats in four chains and a tail
case("reduceMean-trailing", "reduceMean", [x([6, 7, 3, 5])], {"axes": [2, 3]},
     ref=lambda a, c: a["x"].mean((2, 3)))
case("reduceSum-trailing-keep", "reduceSum", [x([5, 3, 7])],
     {"axes": [2], "keepDimensions": True},
     ref=lambda a, c: a["x"].sum(2, keepdims=True))
# exp(800) overflows even in double: the maximum must come out first
case("reduceLogSumExp-large", "reduceLogSumExp",
     [x([2, 3], kind=[800, 801, 799, -800, -801, -790])], {"axes": [1]},
     ref=lambda a, c: a["x"].max(1) + np.log(np.exp(
         a["x"] - a["x"].max(1, keepdims=True)).sum(1)))
case("reduceLogSum", "reduceLogSum", [x([3, 4], kind="pos")], {"axes": [1]},
     ref=lambda a, c: np.log(a["x"].sum(1)))
case("reduceSum-all", "reduceSum", [x([2, 3])],
     ref=lambda a, c: np.array(a["x"].sum()))
# One block of axes in the middle (columns: vectors across the 21
# trailing floats and a tail) and rows longer than a summing block of
# 1024 (a ragged last block): every op the block path takes.
for op, fn in RED.items():
    if op in ("reduceProduct", "reduceLogSumExp"):
        continue
    case(op + "-middle", op, [x([3, 37, 21])], {"axes": [1]},
         ref=lambda a, c, fn=fn: fn(a["x"].astype(np.float64), 1, False))
    case(op + "-long-row", op, [x([2, 2, 2077])], {"axes": [1, 2]},
         ref=lambda a, c, fn=fn: fn(a["x"].astype(np.float64), (1, 2),
                                    False))
# NaN never wins a max (nor a min), in vectors as one at a time
case("reduceMax-nan-row", "reduceMax",
     [x([2, 19], kind=[NAN] + list(range(18)) + list(range(18)) + [NAN])],
     {"axes": [1]}, ref=lambda a, c: np.nanmax(a["x"], 1))
case("reduceSum-int32", "reduceSum", [x([3, 4], i32)], {"axes": [1]},
     ref=lambda a, c: a["x"].sum(1).astype(np.int32))
# uint8 over its whole range: compared unsigned
case("reduceMax-uint8", "reduceMax", [x([3, 4], u8, "full")], {"axes": [0]},
     ref=lambda a, c: a["x"].max(0))
case("argMax", "argMax", [x([3, 4])], {"axis": 1},
     ref=lambda a, c: np.argmax(a["x"], 1).astype(np.int32))
case("argMin-keep-int64", "argMin", [x([3, 4])],
     {"axis": 0, "keepDimensions": True, "outputDataType": "int64"},
     ref=lambda a, c: np.argmin(a["x"], 0)[None])

# ---- convolution and pooling ----
# Random data and filters, asymmetric padding, strides and dilations
# that differ by axis: swapped layouts, axes or padding sides give
# other values.  Average pooling with padding: padded cells are not
# counted (count_include_pad is the twin).
case("conv2d-nchw", "conv2d", [x([1, 3, 7, 7]), ("w", f32, [4, 3, 3, 3], "n")],
     {"padding": [1, 1, 0, 2], "strides": [2, 1]},
     ref=lambda a, c: refs.conv2d(a["x"], a["w"], c["opts"]), tol=1e-4)
case("conv2d-nhwc-hwio-bias", "conv2d",
     [x([2, 6, 5, 4]), ("w", f32, [3, 3, 2, 6], "n")],
     {"inputLayout": "nhwc", "filterLayout": "hwio", "groups": 2,
      "dilations": [1, 2]},
     optins={"bias": ("b", f32, [6], "n")},
     ref=lambda a, c: refs.conv2d(a["x"], a["w"], dict(
         c["opts"], _bias=a["b"])), tol=1e-4)
case("conv2d-depthwise-ohwi", "conv2d",
     [x([1, 5, 5, 3]), ("w", f32, [3, 3, 3, 1], "n")],
     {"inputLayout": "nhwc", "filterLayout": "ohwi", "groups": 3,
      "padding": [1, 1, 1, 1]},
     ref=lambda a, c: refs.conv2d(a["x"], a["w"], c["opts"]), tol=1e-4)
case("conv2d-depthwise-nchw-stride-dilation", "conv2d",
     [x([1, 4, 9, 8]), ("w", f32, [4, 1, 3, 3], "n")],
     {"groups": 4, "strides": [2, 2], "dilations": [2, 1],
      "padding": [2, 1, 0, 3]},
     optins={"bias": ("b", f32, [4], "n")},
     ref=lambda a, c: refs.conv2d(a["x"], a["w"], dict(
         c["opts"], _bias=a["b"])), tol=1e-4)
case("conv2d-depthwise-nhwc-hwio-stride", "conv2d",
     [x([1, 7, 6, 5]), ("w", f32, [3, 3, 1, 5], "n")],
     {"inputLayout": "nhwc", "filterLayout": "hwio", "groups": 5,
      "strides": [2, 2], "dilations": [1, 2], "padding": [1, 2, 2, 1]},
     ref=lambda a, c: refs.conv2d(a["x"], a["w"], c["opts"]), tol=1e-4)
case("conv2d-nchw-wide-padding", "conv2d",
     [x([1, 3, 4, 5]), ("w", f32, [2, 3, 3, 2], "n")],
     {"padding": [4, 3, 5, 4], "strides": [1, 3], "dilations": [2, 1]},
     ref=lambda a, c: refs.conv2d(a["x"], a["w"], c["opts"]), tol=1e-4)
case("conv2d-nchw-tiles-and-blocks", "conv2d",
     [x([1, 40, 9, 37]), ("w", f32, [33, 40, 3, 3], "n")],
     {"padding": [1, 1, 1, 1]},
     optins={"bias": ("b", f32, [33], "n")},
     ref=lambda a, c: refs.conv2d(a["x"], a["w"], dict(
         c["opts"], _bias=a["b"])), tol=1e-4)
# outputs of at least 32 channels on fewer than 1024 positions, from
# at least 128 products each, are computed transposed (rt.h
# nnl_conv_flip): 1x1 on the image itself, batch 2, ihwo filter; and
# grouped, 3x3 padded
case("conv2d-nchw-transposed-1x1-ihwo", "conv2d",
     [x([2, 260, 7, 7]), ("w", f32, [260, 1, 1, 40], "n")],
     {"filterLayout": "ihwo"},
     optins={"bias": ("b", f32, [40], "n")},
     ref=lambda a, c: refs.conv2d(a["x"], a["w"], dict(
         c["opts"], _bias=a["b"])), tol=1e-4)
case("conv2d-nchw-transposed-groups", "conv2d",
     [x([1, 64, 6, 5]), ("w", f32, [70, 32, 3, 3], "n")],
     {"groups": 2, "padding": [1, 1, 1, 1]},
     optins={"bias": ("b", f32, [70], "n")},
     ref=lambda a, c: refs.conv2d(a["x"], a["w"], dict(
         c["opts"], _bias=a["b"])), tol=1e-4)
case("conv2d-1x1-ihwo", "conv2d",
     [x([1, 4, 3, 3]), ("w", f32, [4, 1, 1, 5], "n")],
     {"filterLayout": "ihwo"},
     ref=lambda a, c: refs.conv2d(a["x"], a["w"], c["opts"]), tol=1e-4)
case("conv2d-float16", "conv2d",
     [x([1, 2, 4, 4], f16), ("w", f16, [2, 2, 3, 3], "n")], {},
     ref=lambda a, c: refs.conv2d(a["x"], a["w"], c["opts"]).astype(
         np.float16), tol=2e-2)
case("convTranspose2d", "convTranspose2d",
     [x([1, 2, 3, 3]), ("w", f32, [2, 3, 3, 3], "n")],
     {"strides": [2, 2], "padding": [1, 0, 0, 1], "outputPadding": [1, 1]},
     optins={"bias": ("b", f32, [3], "n")},
     ref=lambda a, c: refs.conv_transpose2d(a["x"], a["w"], dict(
         c["opts"], _bias=a["b"])), tol=1e-4)
case("convTranspose2d-nhwc-groups", "convTranspose2d",
     [x([1, 3, 3, 4]), ("w", f32, [4, 2, 2, 2], "n")],
     {"inputLayout": "nhwc", "groups": 2},
     ref=lambda a, c: refs.conv_transpose2d(a["x"], a["w"], c["opts"]),
     tol=1e-4)
# nnl's 3-D ops: padding, strides and dilations that differ by axis
# (a swapped axis or padding side gives other values), groups with a
# bias (the wrong group's filter or bias), more output positions than
# one band of columns holds (16^3 of 3 x 27 taps; rt/nn/nd.c works a
# band at a time: a ragged last band), the 1 x 1 x 1 product on the
# image itself, and float16
case("conv3d-padded-strided", "conv3d",
     [x([1, 3, 5, 6, 7]), ("w", f32, [4, 3, 3, 2, 3], "n")],
     {"padding": [1, 0, 0, 2, 1, 1], "strides": [1, 2, 3],
      "dilations": [2, 1, 1]},
     ref=lambda a, c: refs.conv3d(a["x"], a["w"], c["opts"]), tol=1e-4)
case("conv3d-groups-bias", "conv3d",
     [x([2, 4, 4, 5, 3]), ("w", f32, [6, 2, 2, 3, 1], "n")],
     {"groups": 2, "padding": [0, 1, 1, 1, 0, 0]},
     optins={"bias": ("b", f32, [6], "n")},
     ref=lambda a, c: refs.conv3d(a["x"], a["w"], dict(
         c["opts"], _bias=a["b"])), tol=1e-4)
case("conv3d-bands", "conv3d",
     [x([1, 3, 16, 16, 16]), ("w", f32, [5, 3, 3, 3, 3], "n")],
     {"padding": [1, 1, 1, 1, 1, 1]},
     optins={"bias": ("b", f32, [5], "n")},
     ref=lambda a, c: refs.conv3d(a["x"], a["w"], dict(
         c["opts"], _bias=a["b"])), tol=1e-4)
case("conv3d-1x1x1", "conv3d",
     [x([1, 7, 2, 3, 5]), ("w", f32, [3, 7, 1, 1, 1], "n")], {},
     ref=lambda a, c: refs.conv3d(a["x"], a["w"], c["opts"]), tol=1e-4)
case("conv3d-float16", "conv3d",
     [x([1, 2, 3, 4, 4], f16), ("w", f16, [2, 2, 2, 3, 3], "n")],
     {"padding": [0, 0, 1, 1, 1, 1]},
     ref=lambda a, c: refs.conv3d(a["x"], a["w"], c["opts"]).astype(
         np.float16), tol=2e-2)
case("convTranspose3d", "convTranspose3d",
     [x([1, 2, 3, 2, 3]), ("w", f32, [2, 3, 3, 2, 2], "n")],
     {"strides": [2, 1, 3], "padding": [1, 0, 0, 1, 1, 0],
      "outputPadding": [1, 0, 2], "dilations": [1, 2, 1]},
     optins={"bias": ("b", f32, [3], "n")},
     ref=lambda a, c: refs.conv_transpose3d(a["x"], a["w"], dict(
         c["opts"], _bias=a["b"])), tol=1e-4)
case("convTranspose3d-groups-bands", "convTranspose3d",
     [x([1, 4, 17, 17, 17]), ("w", f32, [4, 1, 3, 3, 3], "n")],
     {"groups": 2, "padding": [1, 1, 1, 1, 1, 1]},
     ref=lambda a, c: refs.conv_transpose3d(a["x"], a["w"], c["opts"]),
     tol=1e-4)
# pools: padded cells take no part (an average counts them only with
# countIncludePad), all-negative data so that a padding cell read as 0
# shows in a max, ceil rounding's last window past the edge, and the
# p of an Lp pool (1, 2, 3)
case("maxPool3d-ceil-padded", "maxPool3d", [x([1, 2, 5, 6, 7], kind="neg")],
     {"windowDimensions": [2, 3, 2], "strides": [2, 2, 3],
      "padding": [1, 0, 0, 1, 1, 0], "outputShapeRounding": "ceil",
      "dilations": [1, 1, 2]},
     ref=lambda a, c: refs.pool3d("max", a["x"], c["opts"]))
case("averagePool3d-padded", "averagePool3d", [x([2, 2, 4, 5, 6])],
     {"windowDimensions": [3, 2, 3], "strides": [1, 2, 2],
      "padding": [1, 1, 0, 1, 1, 0]},
     ref=lambda a, c: refs.pool3d("avg", a["x"], c["opts"]))
case("averagePool3d-count-pad-ceil", "averagePool3d", [x([1, 3, 5, 5, 4])],
     {"windowDimensions": [2, 3, 3], "strides": [2, 2, 2],
      "padding": [1, 0, 1, 1, 0, 1], "countIncludePad": True,
      "outputShapeRounding": "ceil"},
     ref=lambda a, c: refs.pool3d("avg", a["x"], c["opts"]))
# ceil rounding whose last window would start in the end padding: it
# is dropped (D and H), as ONNX and PyTorch do
case("averagePool3d-ceil-drop", "averagePool3d", [x([1, 2, 5, 5, 5])],
     {"windowDimensions": [2, 2, 2], "strides": [2, 2, 2],
      "padding": [1, 1, 1, 1, 0, 0], "outputShapeRounding": "ceil"},
     ref=lambda a, c: refs.pool3d("avg", a["x"], c["opts"]))
case("averagePool3d-global", "averagePool3d", [x([1, 2, 3, 4, 5])],
     ref=lambda a, c: a["x"].mean((2, 3, 4), keepdims=True))
for q in (1, 2, 3):
    case("lpPool3d-p%d" % q, "lpPool3d", [x([1, 2, 4, 5, 5])],
         {"windowDimensions": [2, 2, 3], "strides": [2, 1, 2],
          "padding": [0, 0, 1, 0, 1, 1], "p": q},
         ref=lambda a, c: refs.pool3d("lp", a["x"], c["opts"]), tol=1e-4)
case("maxPool3d-float16", "maxPool3d", [x([1, 2, 4, 4, 4], f16)],
     {"windowDimensions": [2, 2, 2], "strides": [2, 2, 2]},
     ref=lambda a, c: refs.pool3d("max", a["x"], c["opts"]).astype(
         np.float16))
case("averagePool2d-padded", "averagePool2d", [x([1, 2, 5, 5])],
     {"windowDimensions": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1]},
     ref=lambda a, c: refs.pool2d("avg", a["x"], c["opts"]))
# all negative, so a window's cells past the edge (ceil rounding) do
# not count as 0
case("maxPool2d-nhwc-ceil", "maxPool2d", [x([1, 5, 5, 3], kind="neg")],
     {"windowDimensions": [2, 2], "strides": [2, 2], "layout": "nhwc",
      "outputShapeRounding": "ceil"},
     ref=lambda a, c: refs.pool2d("max", a["x"], c["opts"]))
case("l2Pool2d", "l2Pool2d", [x([1, 1, 4, 4])],
     {"windowDimensions": [2, 2], "dilations": [2, 2]},
     ref=lambda a, c: refs.pool2d("l2", a["x"], c["opts"]))
case("averagePool2d-global", "averagePool2d", [x([2, 3, 4, 4])],
     ref=lambda a, c: a["x"].mean((2, 3), keepdims=True))
case("resample2d-nearest", "resample2d", [x([1, 2, 3, 3])],
     {"scales": [2.0, 2.0]},
     ref=lambda a, c: refs.resample2d(a["x"], c["opts"]))
case("resample2d-linear-sizes", "resample2d", [x([1, 4, 5, 2])],
     {"mode": "linear", "sizes": [3, 7], "axes": [1, 2]},
     ref=lambda a, c: refs.resample2d(a["x"], c["opts"]))
case("pad-constant", "pad", [x([2, 3])],
     {"beginningPadding": [1, 0], "endingPadding": [0, 2], "value": 1.5},
     ref=lambda a, c: np.pad(a["x"], ((1, 0), (0, 2)), constant_values=1.5))
case("pad-constant-rank4-int", "pad", [x([1, 2, 3, 4], i32)],
     {"beginningPadding": [0, 1, 2, 1], "endingPadding": [1, 0, 1, 3],
      "value": -7},
     ref=lambda a, c: np.pad(a["x"], ((0, 1), (1, 0), (2, 1), (1, 3)),
                             constant_values=-7))
case("pad-edge", "pad", [x([2, 3], i32)],
     {"beginningPadding": [1, 2], "endingPadding": [1, 1], "mode": "edge"},
     ref=lambda a, c: np.pad(a["x"], ((1, 1), (2, 1)), mode="edge"))
case("pad-reflection", "pad", [x([3, 4])],
     {"beginningPadding": [2, 1], "endingPadding": [1, 3],
      "mode": "reflection"},
     ref=lambda a, c: np.pad(a["x"], ((2, 1), (1, 3)), mode="reflect"))

# ---- normalization ----
# Random scale, bias and mean; a variance as small as 1e-4 (and the
# default epsilon 1e-5), so epsilon left out, or added after the
# square root, shows.
case("batchNormalization", "batchNormalization",
     [x([2, 3, 2, 2]), ("m", f32, [3], "n"), ("v", f32, [3], "pos")],
     {"epsilon": 1e-3}, optins={"scale": ("s", f32, [3], "n"),
                                "bias": ("b", f32, [3], "n")},
     ref=lambda a, c: (a["x"] - a["m"][:, None, None]) / np.sqrt(
         a["v"][:, None, None] + 1e-3) * a["s"][:, None, None] +
     a["b"][:, None, None])
case("batchNormalization-axis3", "batchNormalization",
     [x([2, 2, 2, 4]), ("m", f32, [4], "n"),
      ("v", f32, [4], [1e-4, 1e-3, 0.5, 2])],
     {"axis": 3}, ref=lambda a, c: (a["x"] - a["m"]) / np.sqrt(a["v"] + 1e-5))


def _norm(v, axes, eps):
    m = v.mean(axes, keepdims=True)
    return (v - m) / np.sqrt(((v - m) ** 2).mean(axes, keepdims=True) + eps)


case("layerNormalization", "layerNormalization", [x([2, 3, 4])],
     {"axes": [1, 2]}, optins={"scale": ("s", f32, [3, 4], "n"),
                               "bias": ("b", f32, [3, 4], "n")},
     ref=lambda a, c: _norm(a["x"], (1, 2), 1e-5) * a["s"] + a["b"])
case("layerNormalization-default", "layerNormalization", [x([3, 5])],
     ref=lambda a, c: _norm(a["x"], (1,), 1e-5))
case("instanceNormalization", "instanceNormalization", [x([2, 3, 4, 4])],
     optins={"scale": ("s", f32, [3], "n"), "bias": ("b", f32, [3], "n")},
     ref=lambda a, c: _norm(a["x"], (2, 3), 1e-5) * a["s"][:, None, None] +
     a["b"][:, None, None])
case("instanceNormalization-nhwc", "instanceNormalization", [x([1, 3, 3, 2])],
     {"layout": "nhwc"}, ref=lambda a, c: _norm(a["x"], (1, 2), 1e-5))
# The last axis of odd length (vectors and a tail) around an offset of
# 1000, where a one-pass E[x^2] - E[x]^2 in float loses the variance;
# the channels of [N, C, H, W] (LayerNorm2d: columns, inner 5 x 19);
# odd planes, with scale and bias on each path, and another epsilon.
_OFF = (1000 + np.sin(np.arange(3 * 5 * 71.0))).reshape(3, 5, 71)
case("layerNormalization-offset", "layerNormalization",
     [x([3, 5, 71], kind=_OFF)], {"axes": [2], "epsilon": 1e-3},
     optins={"scale": ("s", f32, [71], "n"), "bias": ("b", f32, [71], "n")},
     ref=lambda a, c: _norm(a["x"].astype(np.float64), (2,), 1e-3) *
     a["s"] + a["b"], tol=1e-4)
case("layerNormalization-channels", "layerNormalization", [x([2, 7, 5, 19])],
     {"axes": [1]}, optins={"scale": ("s", f32, [7], "n"),
                            "bias": ("b", f32, [7], "n")},
     ref=lambda a, c: _norm(a["x"].astype(np.float64), (1,), 1e-5) *
     a["s"][:, None, None] + a["b"][:, None, None])
case("layerNormalization-middle", "layerNormalization", [x([2, 3, 4, 5])],
     {"axes": [1, 2]}, ref=lambda a, c: _norm(a["x"].astype(np.float64),
                                              (1, 2), 1e-5))
case("instanceNormalization-odd", "instanceNormalization", [x([2, 3, 7, 9])],
     {"epsilon": 0.5},
     optins={"scale": ("s", f32, [3], "n"), "bias": ("b", f32, [3], "n")},
     ref=lambda a, c: _norm(a["x"].astype(np.float64), (2, 3), 0.5) *
     a["s"][:, None, None] + a["b"][:, None, None])
case("instanceNormalization-nhwc-wide", "instanceNormalization",
     [x([2, 3, 5, 19])], {"layout": "nhwc"},
     optins={"scale": ("s", f32, [19], "n"), "bias": ("b", f32, [19], "n")},
     ref=lambda a, c: _norm(a["x"].astype(np.float64), (1, 2), 1e-5) *
     a["s"] + a["b"])

# ---- matrix products ----
# Random, non-square: a transposed operand, swapped alpha and beta or
# c broadcast along the wrong axis gives other values or shapes.
case("matmul-batched", "matmul", ab([2, 1, 3, 4], [3, 4, 5]),
     ref=lambda a, c: np.matmul(a["a"], a["b"]), tol=1e-4)
case("matmul-2d", "matmul", ab([5, 7], [7, 3]),
     ref=lambda a, c: a["a"] @ a["b"], tol=1e-4)
# Batches of 40 rows and more (B packed, rt/nn/nn.c), odd sizes that
# leave ragged tiles: b one matrix for every batch of a (the batches
# one product of 3 * 41 rows), b broadcast over some batch dimensions
# only, a broadcast instead of b, both broadcast at once, and rank 4
# against rank 2.  A kernel that merges batches where b or a is not
# one matrix, or takes the wrong batch of either, gives other values.
case("matmul-b-shared", "matmul", ab([3, 41, 37], [37, 45]),
     ref=lambda a, c: np.matmul(a["a"], a["b"]), tol=1e-4)
case("matmul-b-shared-rank4", "matmul", ab([2, 3, 33, 19], [19, 35]),
     ref=lambda a, c: np.matmul(a["a"], a["b"]), tol=1e-4)
case("matmul-b-broadcast-inner", "matmul", ab([2, 3, 34, 9], [2, 1, 9, 7]),
     ref=lambda a, c: np.matmul(a["a"], a["b"]), tol=1e-4)
case("matmul-a-broadcast", "matmul", ab([35, 17], [3, 17, 39]),
     ref=lambda a, c: np.matmul(a["a"], a["b"]), tol=1e-4)
case("matmul-both-broadcast", "matmul", ab([3, 1, 5, 6], [1, 2, 6, 33]),
     ref=lambda a, c: np.matmul(a["a"], a["b"]), tol=1e-4)
case("matmul-b-one-batch", "matmul", ab([4, 1, 2, 8], [1, 1, 8, 3]),
     ref=lambda a, c: np.matmul(a["a"], a["b"]), tol=1e-4)
case("gemm", "gemm", ab([4, 3], [5, 4]),
     {"aTranspose": True, "bTranspose": True, "alpha": 0.5, "beta": 2},
     optins={"c": ("cc", f32, [1, 5], "n")},
     ref=lambda a, c: 0.5 * (a["a"].T @ a["b"].T) + 2 * a["cc"], tol=1e-4)
case("gemm-plain", "gemm", ab([3, 70], [70, 300]),
     ref=lambda a, c: a["a"] @ a["b"], tol=1e-4)

# ---- recurrent ----
# Random weights in (-0.9, 0.9): gate order (zrn/rzn, iofg/ifgo), the
# direction and resetAfter each change the result.
H, I, B, S = 3, 4, 2, 3
case("gru", "gru", [x([S, B, I]), ("w", f32, [1, 3 * H, I], "unit"),
                    ("r", f32, [1, 3 * H, H], "unit")],
     {"steps": S, "hiddenSize": H, "returnSequence": True},
     optins={"bias": ("b", f32, [1, 3 * H], "unit"),
             "recurrentBias": ("rb", f32, [1, 3 * H], "unit")}, nout=2,
     ref=lambda a, c: refs.gru(a["x"], a["w"], a["r"], S, H, dict(
         c["opts"], _bias=a["b"], _recurrentBias=a["rb"])), tol=1e-4)
case("gru-both-before-rzn", "gru", [x([S, B, I]),
                                    ("w", f32, [2, 3 * H, I], "unit"),
                                    ("r", f32, [2, 3 * H, H], "unit")],
     {"steps": S, "hiddenSize": H, "direction": "both", "resetAfter": False,
      "layout": "rzn"},
     optins={"initialHiddenState": ("h0", f32, [2, B, H], "unit"),
             "recurrentBias": ("rb", f32, [2, 3 * H], "unit")},
     ref=lambda a, c: refs.gru(a["x"], a["w"], a["r"], S, H, dict(
         c["opts"], _recurrentBias=a["rb"]), h0=a["h0"]), tol=1e-4)
case("gruCell", "gruCell", [x([B, I]), ("w", f32, [3 * H, I], "unit"),
                            ("r", f32, [3 * H, H], "unit"),
                            ("h", f32, [B, H], "unit")],
     {"hiddenSize": H}, optins={"bias": ("b", f32, [3 * H], "unit")},
     ref=lambda a, c: refs.gru(a["x"], a["w"], a["r"], 1, H, dict(
         c["opts"], _bias=a["b"]), cell=True, h0=a["h"]), tol=1e-4)
case("lstm", "lstm", [x([S, B, I]), ("w", f32, [1, 4 * H, I], "unit"),
                      ("r", f32, [1, 4 * H, H], "unit")],
     {"steps": S, "hiddenSize": H, "returnSequence": True},
     optins={"bias": ("b", f32, [1, 4 * H], "unit"),
             "peepholeWeight": ("p", f32, [1, 3 * H], "unit")}, nout=3,
     ref=lambda a, c: refs.lstm(a["x"], a["w"], a["r"], S, H, dict(
         c["opts"], _bias=a["b"], _peepholeWeight=a["p"])), tol=1e-4)
case("lstm-backward-ifgo", "lstm", [x([S, B, I]),
                                    ("w", f32, [1, 4 * H, I], "unit"),
                                    ("r", f32, [1, 4 * H, H], "unit")],
     {"steps": S, "hiddenSize": H, "direction": "backward",
      "layout": "ifgo", "activations": ["sigmoid", "relu", "tanh"]},
     optins={"initialCellState": ("c0", f32, [1, B, H], "unit")}, nout=2,
     ref=lambda a, c: refs.lstm(a["x"], a["w"], a["r"], S, H, c["opts"],
                                c0=a["c0"]), tol=1e-4)
case("lstmCell", "lstmCell", [x([B, I]), ("w", f32, [4 * H, I], "unit"),
                              ("r", f32, [4 * H, H], "unit"),
                              ("h", f32, [B, H], "unit"),
                              ("cs", f32, [B, H], "unit")],
     {"hiddenSize": H}, nout=2,
     ref=lambda a, c: refs.lstm(a["x"], a["w"], a["r"], 1, H, c["opts"],
                                cell=True, h0=a["h"], c0=a["cs"]), tol=1e-4)

# ---- invalid graphs: one or more per op family ----
invalid("add-shapes", "add", ab([2, 3], [4]), {}, "do not broadcast")
invalid("add-types", "add", [("a", f32, [2], "n"), ("b", i32, [2], "n")], {},
        'input "a" is float32 but input "b" is int32')
invalid("logicalAnd-float", "logicalAnd", ab([2], [2]), {},
        "data type float32 is not allowed")
invalid("sqrt-int", "sqrt", [x([2], i32)], {}, "data type int32 is not allowed")
invalid("clamp-order", "clamp", [x([2])], {"minValue": 2, "maxValue": 1},
        'option "minValue": 2 is greater than maxValue 1')
invalid("softmax-axis", "softmax", [x([2, 3])], {"axis": 2},
        'option "axis": 2 is out of range for rank 2')
invalid("prelu-slope", "prelu", [x([2, 3]), ("s", f32, [2], "n")], {},
        'input "slope" [2] does not broadcast')
invalid("where-cond", "where", [("c", f32, [2], "n"), ("t", f32, [2], "n"),
                                ("f", f32, [2], "n")], {},
        'input "condition": data type float32')
invalid("expand-shape", "expand", [x([3])], {"newShape": [2, 4]},
        "does not broadcast to newShape [2, 4]")
invalid("tile-reps", "tile", [x([2, 3])], {"repetitions": [2]},
        'option "repetitions": 1 values for rank 2')
invalid("reverse-axis", "reverse", [x([2])], {"axes": [1]},
        'option "axes": 1 is out of range')
invalid("triangular-rank", "triangular", [x([3])], {}, "rank 1 is below 2")
invalid("cumsum-axis", "cumulativeSum", [x([3])], {"axis": 1},
        'option "axis": 1 is out of range')
invalid("quantize-zp", "quantizeLinear",
        [x([4]), ("s", f32, [4], "n"), ("z", f32, [4], "n")], {},
        'input "zeroPoint": data type float32')
invalid("dequantize-scale", "dequantizeLinear",
        [("q", i8, [4], "n"), ("s", f32, [3], "n"), ("z", i8, [3], "n")], {},
        'input "scale" [3] neither broadcasts')
invalid("cast-type", "cast", [x([2])], {"dataType": "complex64"},
        "dataType")
invalid("reshape-count", "reshape", [x([2, 3])], {"newShape": [4, 2]},
        'option "newShape": 8 elements, the input [2, 3] has 6')
invalid("transpose-perm", "transpose", [x([2, 3])], {"permutation": [0, 0]},
        'option "permutation": not a permutation')
invalid("slice-bounds", "slice", [x([4])], {"starts": [2], "sizes": [3]},
        "dimension 0: start 2 + size 3 exceeds 4")
invalid("split-uneven", "split", [x([5])], {"splits": 2}, nout=2,
        msg='option "splits": 2 does not divide dimension 0 (5) evenly')
invalid("concat-dims", "concat", [("p", f32, [2, 3], "n"),
                                  ("q", f32, [3, 3], "n")], {"axis": 1},
        "input 1: dimension 0 is 3, input 0 has 2")
invalid("gather-index-type", "gather", [x([3]), ("i", f32, [2], "n")], {},
        'input "indices": data type float32')
invalid("gatherElements-rank", "gatherElements",
        [x([3, 3]), ("i", i32, [3], "n")], {}, 'input "indices": rank 1')
invalid("gatherND-k", "gatherND", [x([3]), ("i", i32, [2, 2], "n")], {},
        "the last dimension must be at most")
invalid("scatterElements-updates", "scatterElements",
        [x([3]), ("i", i32, [2], "n"), ("u", i32, [2], "n")], {},
        'input "updates" is int32')
invalid("scatterND-updates", "scatterND",
        [x([4, 3]), ("i", i32, [2, 1], "n"), ("u", f32, [2, 2], "n")], {},
        'input "updates" [2, 2] does not fit')
invalid("reduce-axes", "reduceSum", [x([2, 3])], {"axes": [1, 1]},
        'option "axes": 1 appears twice')
invalid("reduceMean-int", "reduceMean", [x([2], i32)], {},
        "data type int32 is not allowed")
invalid("argMax-type", "argMax", [x([2, 3])],
        {"axis": 0, "outputDataType": "uint8"},
        'option "outputDataType": data type uint8')
invalid("conv2d-channels", "conv2d",
        [x([1, 3, 5, 5]), ("w", f32, [4, 2, 3, 3], "n")], {},
        'input "filter" has 2 input channels, input has 3')
invalid("conv2d-groups", "conv2d",
        [x([1, 3, 5, 5]), ("w", f32, [4, 1, 3, 3], "n")], {"groups": 2},
        'option "groups": 2 does not divide')
invalid("conv2d-too-small", "conv2d",
        [x([1, 1, 2, 2]), ("w", f32, [1, 1, 3, 3], "n")], {},
        "does not fit the padded 2x2 input")
invalid("conv2d-strides", "conv2d",
        [x([1, 1, 5, 5]), ("w", f32, [1, 1, 3, 3], "n")], {"strides": [1]},
        'option "strides": expected 2 values, found 1')
invalid("convTranspose2d-outpad", "convTranspose2d",
        [x([1, 1, 3, 3]), ("w", f32, [1, 1, 3, 3], "n")],
        {"outputPadding": [1, 1]}, 'option "outputPadding": 1 must be below')
invalid("conv3d-channels", "conv3d",
        [x([1, 3, 4, 4, 4]), ("w", f32, [2, 2, 3, 3, 3], "n")], {},
        'input "filter" has 2 input channels, input has 3')
invalid("conv3d-rank", "conv3d",
        [x([1, 3, 4, 4]), ("w", f32, [2, 3, 3, 3], "n")], {},
        'input "input": expected rank 5, found rank 4')
invalid("conv3d-padding", "conv3d",
        [x([1, 1, 4, 4, 4]), ("w", f32, [1, 1, 3, 3, 3], "n")],
        {"padding": [1, 1, 1, 1]},
        'option "padding": expected 6 values, found 4')
invalid("conv3d-too-small", "conv3d",
        [x([1, 1, 2, 4, 4]), ("w", f32, [1, 1, 3, 3, 3], "n")], {},
        "spatial dimension 0: the output size 0 is not a valid dimension")
invalid("convTranspose3d-outpad", "convTranspose3d",
        [x([1, 1, 3, 3, 3]), ("w", f32, [1, 1, 2, 2, 2], "n")],
        {"outputPadding": [0, 1, 0], "strides": [1, 1, 2]},
        'option "outputPadding": 1 must be below the stride 1')
invalid("lpPool3d-p0", "lpPool3d", [x([1, 1, 2, 2, 2])], {"p": 0},
        'option "p": 0, it must be positive')
invalid("maxPool3d-strides", "maxPool3d", [x([1, 1, 3, 3, 3])],
        {"strides": [1, 0, 1]}, 'option "strides": [1, 0, 1]: item 1 is 0')
invalid("averagePool3d-rank", "averagePool3d", [x([1, 1, 3, 3])], {},
        'input "input": expected rank 5, found rank 4')
invalid("averagePool3d-type", "averagePool3d", [x([1, 1, 2, 2, 2], i32)],
        {}, "data type int32 is not allowed")
invalid("pool-window", "maxPool2d", [x([1, 1, 2, 2])],
        {"windowDimensions": [3, 3]}, 'option "windowDimensions"')
invalid("pool-rank", "averagePool2d", [x([1, 4, 4])], {},
        "expected rank 4, found rank 3")
invalid("resample-axes", "resample2d", [x([1, 1, 2, 2])], {"axes": [1, 1]},
        'option "axes": [1, 1] are not two distinct axes')
invalid("pad-reflection", "pad", [x([2])],
        {"beginningPadding": [2], "endingPadding": [0], "mode": "reflection"},
        'mode "reflection": padding of dimension 0 must be below its size 2')
invalid("batchnorm-mean", "batchNormalization",
        [x([2, 3]), ("m", f32, [2], "n"), ("v", f32, [3], "n")], {},
        'input "mean": expected float32[3], found float32[2]')
invalid("layernorm-scale", "layerNormalization", [x([2, 3])], {"axes": [1]},
        'option "scale": expected rank 1, found [2, 3]',
        optins={"scale": ("s", f32, [2, 3], "n")})
invalid("instancenorm-rank", "instanceNormalization", [x([2, 3])], {},
        "expected rank 4, found rank 2")
invalid("matmul-inner", "matmul", ab([2, 3], [4, 2]), {},
        'input "a" [2, 3] has 3 columns, input "b" [4, 2] has 4 rows')
invalid("gemm-c", "gemm", ab([2, 3], [3, 4]), {},
        'option "c" [3] does not broadcast to the output [2, 4]',
        optins={"c": ("cc", f32, [3], "n")})
invalid("gru-weight", "gru", [x([2, 1, 3]), ("w", f32, [1, 6, 3], "n"),
                              ("r", f32, [1, 6, 3], "n")],
        {"steps": 2, "hiddenSize": 2},
        'input "recurrentWeight": expected float32[1, 6, 2]')
invalid("lstm-steps", "lstm", [x([2, 1, 3]), ("w", f32, [1, 8, 3], "n"),
                               ("r", f32, [1, 8, 2], "n")],
        {"steps": 3, "hiddenSize": 2}, nout=2,
        msg='input has 2 steps, option "steps" says 3')
invalid("gruCell-hidden", "gruCell", [x([1, 3]), ("w", f32, [6, 3], "n"),
                                      ("r", f32, [6, 2], "n"),
                                      ("h", f32, [1, 3], "n")],
        {"hiddenSize": 2}, 'input "hiddenState": expected float32[1, 2]')
invalid("lstmCell-cell", "lstmCell", [x([1, 3]), ("w", f32, [8, 3], "n"),
                                      ("r", f32, [8, 2], "n"),
                                      ("h", f32, [1, 2], "n"),
                                      ("cs", f32, [2, 2], "n")],
        {"hiddenSize": 2}, nout=2,
        msg='input "cellState": expected float32[1, 2]')

# ---- at least one refusal for every other op ----
for op in ["sub", "mul", "div", "max", "min", "pow"]:
    invalid(op + "-shapes", op, ab([2, 3], [2]), {}, "do not broadcast")
for op in CMP:
    invalid(op + "-types", op, [("a", f32, [2], "n"), ("b", i32, [2], "n")],
            {}, 'input "a" is float32 but input "b" is int32')
for op in ["logicalOr", "logicalXor"]:
    invalid(op + "-float", op, ab([2], [2]), {},
            "data type float32 is not allowed")
invalid("logicalNot-float", "logicalNot", [("a", f32, [2], "n")], {},
        "data type float32 is not allowed")
for op in ["isNaN", "isInfinite"]:
    invalid(op + "-int", op, [("a", i32, [2], "n")], {},
            "data type int32 is not allowed")
for op in ["ceil", "cos", "erf", "exp", "floor", "log", "reciprocal",
           "roundEven", "sin", "tan", "elu", "gelu", "hardSigmoid",
           "hardSwish", "leakyRelu", "linear", "sigmoid", "softplus",
           "softsign", "tanh"]:
    invalid(op + "-int", op, [x([2], i32)], {},
            "data type int32 is not allowed")
for op in ["abs", "neg", "sign", "relu"]:
    invalid(op + "-uint8", op, [x([2], u8)], {},
            "data type uint8 is not allowed")
invalid("identity-arity", "identity", [x([2]), x([2], name="z")], {},
        "identity takes 1 input (input), found 2")
for op in ["reduceL1", "reduceL2", "reduceLogSum", "reduceLogSumExp",
           "reduceMax", "reduceMin", "reduceProduct", "reduceSumSquare"]:
    invalid(op + "-axes", op, [x([2, 3])], {"axes": [2]},
            'option "axes": 2 is out of range for rank 2')
invalid("argMin-axis", "argMin", [x([2, 3])], {"axis": 2},
        'option "axis": 2 is out of range for rank 2')
# found by scripts/fuzz.py: nnl-run read past an empty input
E = 'is empty: no index into it is valid'
invalid("gather-empty-axis", "gather", [x([0, 3]), ("i", i32, [2], "n")],
        {}, 'dimension 0 of input "input" [0, 3] ' + E)
invalid("gatherElements-empty-axis", "gatherElements",
        [x([2, 0]), ("i", i32, [2, 3], "n")], {"axis": 1},
        'dimension 1 of input "input" [2, 0] ' + E)
invalid("gatherND-empty-axis", "gatherND",
        [x([0, 3]), ("i", i32, [2, 1], "n")], {},
        'dimension 0 of input "input" [0, 3] ' + E)
invalid("scatterElements-empty-axis", "scatterElements",
        [x([2, 0]), ("i", i32, [2, 3], "n"), ("u", f32, [2, 3], "n")],
        {"axis": 1}, 'dimension 1 of input "input" [2, 0] ' + E)
invalid("scatterND-empty-axis", "scatterND",
        [x([4, 0]), ("i", i32, [2, 2], "n"), ("u", f32, [2], "n")], {},
        'dimension 1 of input "input" [4, 0] ' + E)
invalid("resample2d-empty-axis", "resample2d", [x([1, 0, 5, 2])],
        {"mode": "linear", "sizes": [3, 7], "axes": [1, 2]},
        'dimension 1 of input "input" [1, 0, 5, 2] is empty: nothing to '
        'resample from')
invalid("pad-edge-empty", "pad", [x([0, 3])],
        {"beginningPadding": [1, 2], "endingPadding": [1, 1],
         "mode": "edge"},
        'mode "edge": dimension 0 of the input is empty')
for op in ["argMin", "argMax"]:
    invalid(op + "-empty-axis", op, [x([0, 4])], {"axis": 0},
            'dimension 0 of input "input" [0, 4] is empty')
invalid("l2Pool2d-int", "l2Pool2d", [x([1, 1, 2, 2], i32)], {},
        "data type int32 is not allowed")
case("convTranspose2d-float16", "convTranspose2d",
     [x([1, 2, 3, 3], f16), ("w", f16, [2, 2, 2, 2], "n")], {"strides": [2, 2]},
     ref=lambda a, c: refs.conv_transpose2d(a["x"], a["w"], c["opts"]).astype(
         np.float16), tol=2e-2)

# ---- nnl's op set beyond WebNN (common/core/ops_nnl.def) ----
# The inverse trigonometric functions on (-0.9, 0.9) and the edges:
# asin is not acos (they differ by pi/2 - 2 asin), atan not asin, and
# +-1 and beyond (NaN for asin and acos, pi/2 for atan of Inf).
INV = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan}
for op, fn in INV.items():
    case(op, op, [x([2, 3], kind="unit")], ref=lambda a, c, fn=fn: fn(a["x"]))
    edge = [-1.0, 1.0, -0.0, 0.5, INF, -INF] if op == "atan" else \
        [-1.0, 1.0, -0.0, 0.5, 1.5, -2.0]
    case(op + "-edges", op, [x([6], kind=edge)],
         ref=lambda a, c, fn=fn: fn(a["x"]))
    invalid(op + "-int", op, [x([2], i32)], {},
            "data type int32 is not allowed")
# bitShift by 0, within the width and past it (numpy gives 0 for a
# shift of the width or more on unsigned types: not a rotate, not a
# shift modulo the width), broadcast amounts; right is not left.
SHV = [0, 1, 3, 7, 8, 200, 255]
for dt, amt in ((u8, [0, 1, 2, 7, 8, 9, 63]),
                (u32, [0, 1, 5, 31, 32, 33, 1]),
                (u64, [0, 1, 17, 63, 64, 2, 40])):
    for d in ("left", "right"):
        fn = np.left_shift if d == "left" else np.right_shift
        case("bitShift-%s-%s" % (d, dt), "bitShift",
             [("a", dt, [2, 7], [SHV, [(v * 3 + 1) % 256 for v in SHV]]),
              ("b", dt, [7], amt)], {"direction": d},
             ref=lambda a, c, fn=fn, dt=dt: np.where(
                 a["b"].astype(np.uint64) >= 8 * np.dtype(dt).itemsize,
                 0, fn(a["a"], np.minimum(
                     a["b"], 8 * np.dtype(dt).itemsize - 1).astype(dt))
             ).astype(dt))
case("bitShift-bcast", "bitShift",
     [("a", u32, [3, 1], [[1], [2], [4000000000]]), ("b", u32, [4],
                                                    [0, 1, 2, 30])],
     {"direction": "left"},
     ref=lambda a, c: (a["a"].astype(np.uint64) << a["b"].astype(
         np.uint64) & 0xFFFFFFFF).astype(np.uint32))
invalid("bitShift-float", "bitShift", ab([2], [2]), {"direction": "left"},
        "data type float32 is not allowed")
invalid("bitShift-direction", "bitShift", ab([2], [2], u8),
        {"direction": "up"}, 'expected one of "left", "right"')


# scatterElementsReduce and scatterNDReduce (nnl's, ONNX's reductions):
# indices that repeat, so each target gathers several updates in order
# (a store instead of a reduction, or a reduction that skips repeats,
# gives other values); NumPy's ufunc.at is the reference, in the
# update's type (int32 products wrap, int64 ones too; max and min pass
# a NaN on); add is not mul, max not min; axis 1 is not axis 0.
SCR = {"add": np.add, "mul": np.multiply, "max": np.maximum,
       "min": np.minimum}


def _scatter_el_at(a, fn, axis):
    y = a["x"].copy()
    i = a["i"]
    pos = [np.broadcast_to(np.arange(n).reshape(
        [-1 if d == k else 1 for d in range(i.ndim)]), i.shape)
        for k, n in enumerate(i.shape)]
    pos[axis] = i
    fn.at(y, tuple(pos), a["u"])
    return y


def _scatter_nd_at(a, fn):
    y = a["x"].copy()
    k = a["i"].shape[-1]
    for t, v in zip(a["i"].reshape(-1, k), a["u"].reshape(
            (-1,) + y.shape[k:])):
        fn.at(y, tuple(t), v)
    return y


for red, fn in SCR.items():
    for dt in (f32, i32, i64, f16):
        big = dt in (i32, i64) and red == "mul"
        case("scatterElementsReduce-%s-%s" % (red, dt),
             "scatterElementsReduce",
             [x([3, 4], dt, "full" if big else "n"),
              ("i", i64, [3, 3], [[1, 1, 3], [0, 1, 1], [1, 0, 1]]),
              ("u", dt, [3, 3], "full" if big else "n")],
             {"reduction": red, "axis": 1},
             ref=lambda a, c, fn=fn: _scatter_el_at(a, fn, 1))
        case("scatterNDReduce-%s-%s" % (red, dt), "scatterNDReduce",
             [x([4, 3], dt, "full" if big else "n"),
              ("i", i32, [4, 1], [[2], [0], [2], [-2]]),
              ("u", dt, [4, 3], "full" if big else "n")],
             {"reduction": red},
             ref=lambda a, c, fn=fn: _scatter_nd_at(
                 dict(a, i=np.where(a["i"] < 0, a["i"] + 4, a["i"])), fn))
    case("scatterNDReduce-%s-nan" % red, "scatterNDReduce",
         [x([3], kind=[1.0, NAN, -2.0]),
          ("i", i32, [3, 1], [[0], [1], [0]]),
          ("u", f32, [3], [NAN, 3.0, 0.5])], {"reduction": red},
         ref=lambda a, c, fn=fn: _scatter_nd_at(a, fn))
case("scatterNDReduce-add-tuples", "scatterNDReduce",
     [x([2, 3, 2]), ("i", i64, [3, 2], [[1, 2], [0, 0], [1, 2]]),
      ("u", f32, [3, 2], "n")], {"reduction": "add"},
     ref=lambda a, c: _scatter_nd_at(a, np.add))
case("scatterElementsReduce-max-axis0-uint64", "scatterElementsReduce",
     [x([2, 2], u64, [1, 2, 3, 2 ** 63 + 5]),
      ("i", i32, [2, 2], [[1, 1], [1, 1]]),
      ("u", u64, [2, 2], [2 ** 64 - 1, 0, 7, 2 ** 63])],
     {"reduction": "max"},
     ref=lambda a, c: _scatter_el_at(a, np.maximum, 0))
invalid("scatterNDReduce-reduction", "scatterNDReduce",
        [x([4]), ("i", i32, [1, 1], "n"), ("u", f32, [1], "n")],
        {"reduction": "sum"}, 'expected one of "add", "mul"')
invalid("scatterElementsReduce-updates", "scatterElementsReduce",
        [x([3]), ("i", i32, [2], "n"), ("u", i32, [2], "n")],
        {"reduction": "add"}, 'input "updates" is int32')

# maxPool2dIndices (nnl's, ONNX MaxPool's Indices): each window's taps
# inside the input, the first largest by np.argmax over them in
# row-major order, as a flat index of the whole input (batch and
# channel too), row- or column-major.  Two batches and channels (an
# index without their offset is wrong), padding on every side, strides
# and dilations apart (swapped ones move the taps), ceil rounding's
# extra window, and small integers that tie (the last of equals is
# wrong).
def _maxpool_idx(x, o):
    n, c, h, w = x.shape
    kh, kw = o.get("windowDimensions", [h, w])
    sh, sw = o.get("strides", [1, 1])
    dh, dw = o.get("dilations", [1, 1])
    pt, pb, pl, pr = o.get("padding", [0, 0, 0, 0])
    rnd = np.ceil if o.get("outputShapeRounding") == "ceil" else np.floor
    oh = int(rnd((h + pt + pb - (kh - 1) * dh - 1) / sh)) + 1
    ow = int(rnd((w + pl + pr - (kw - 1) * dw - 1) / sw)) + 1
    y = np.zeros((n, c, oh, ow), np.int64)
    for b, ch, a, e in np.ndindex(n, c, oh, ow):
        taps = [(r, q) for r in range(a * sh - pt, a * sh - pt + kh * dh, dh)
                for q in range(e * sw - pl, e * sw - pl + kw * dw, dw)
                if 0 <= r < h and 0 <= q < w]
        r, q = taps[int(np.argmax([x[b, ch, r, q] for r, q in taps]))]
        y[b, ch, a, e] = (b * c + ch) * h * w + (
            q * h + r if o.get("storageOrder") == "columnMajor" else
            r * w + q)
    return y


for name, dt, kind, o in (
        ("pads", f32, "n", {"windowDimensions": [3, 2],
                            "padding": [1, 2, 0, 1]}),
        ("strides-dilations", f32, "n",
         {"windowDimensions": [2, 2], "strides": [2, 1],
          "dilations": [1, 2]}),
        ("ceil-colmajor", f16, "n",
         {"windowDimensions": [2, 3], "strides": [2, 2],
          "outputShapeRounding": "ceil", "storageOrder": "columnMajor"}),
        ("ties-int8", i8, [v % 3 for v in range(2 * 3 * 5 * 6)],
         {"windowDimensions": [2, 2], "padding": [1, 1, 1, 1],
          "strides": [2, 2]}),
        ("global-uint8", u8, "full", {})):
    case("maxPool2dIndices-" + name, "maxPool2dIndices",
         [x([2, 3, 5, 6], dt, kind)], o,
         ref=lambda a, c, o=o: _maxpool_idx(a["x"], o))
invalid("maxPool2dIndices-padding-only", "maxPool2dIndices",
        [x([1, 1, 4, 4])], {"windowDimensions": [2, 2],
                            "padding": [0, 0, 3, 0], "strides": [1, 3]},
        "holds only padding")
invalid("maxPool2dIndices-rank", "maxPool2dIndices", [x([1, 4, 4])],
        {}, "rank 4")
invalid("maxPool2dIndices-order", "maxPool2dIndices", [x([1, 1, 4, 4])],
        {"storageOrder": "nhwc"}, 'expected one of "rowMajor"')

# topK: each row sorted by Python's own sort on (key, index): larger
# first (smaller with largest false), NaN above everything, equal
# items by their index; integers compared as Python integers (exact
# past 2^53, unsigned past 2^63).
def topk_ref(x, k, axis, largest, idt=np.int64):
    m = np.moveaxis(x, axis, -1)
    rows = m.reshape(-1, m.shape[-1])
    vals, idx = [], []
    for row in rows:
        def key(j):
            v = row[j]
            if isinstance(v, (float, np.floating)) and np.isnan(v):
                return (0 if largest else 1, 0, j)
            v = float(v) if row.dtype.kind == "f" else int(v)
            return (1 if largest else 0, -v if largest else v, j)
        order = sorted(range(len(row)), key=key)[:k]
        vals.append([row[j] for j in order])
        idx.append(order)
    shape = m.shape[:-1] + (k,)
    v = np.moveaxis(np.array(vals, dtype=x.dtype).reshape(shape), -1, axis)
    i = np.moveaxis(np.array(idx, dtype=idt).reshape(shape), -1, axis)
    return [v, i]


# rows of 7 and 13 (merge sort passes over odd lengths), the axis in
# front (strided rows), ties and NaN in both directions, int64 that
# differ past float64's precision, uint64 past 2^63, float16
case("topK-largest", "topK", [x([3, 7])], {"k": 3, "axis": 1}, nout=2,
     ref=lambda a, c: topk_ref(a["x"], 3, 1, True))
case("topK-smallest-axis0", "topK", [x([13, 4])],
     {"k": 13, "axis": 0, "largest": False}, nout=2,
     ref=lambda a, c: topk_ref(a["x"], 13, 0, False))
TIES = [[2.0, NAN, 2.0, -1.0, 5.0, 2.0], [0.0, -0.0, 3.0, 3.0, NAN, -INF]]
for lg in (True, False):
    case("topK-ties-%s" % ("largest" if lg else "smallest"), "topK",
         [x([2, 6], kind=TIES)], {"k": 4, "axis": 1, "largest": lg},
         nout=2, ref=lambda a, c, lg=lg: topk_ref(a["x"], 4, 1, lg))
BIG = 2 ** 60
case("topK-int64-exact", "topK",
     [x([5], i64, kind=[BIG + 1, BIG, BIG + 2, -BIG, BIG + 1])],
     {"k": 4, "axis": 0, "outputDataType": "int32"}, nout=2,
     ref=lambda a, c: topk_ref(a["x"], 4, 0, True, np.int32))
case("topK-uint64-high", "topK",
     [x([4], u64, kind=[2 ** 63 + 5, 7, 2 ** 64 - 1, 2 ** 63])],
     {"k": 2, "axis": 0, "largest": False}, nout=2,
     ref=lambda a, c: topk_ref(a["x"], 2, 0, False))
case("topK-float16", "topK", [x([2, 3, 5], f16)], {"k": 2, "axis": 2},
     nout=2, ref=lambda a, c: topk_ref(a["x"], 2, 2, True))
invalid("topK-k-past-axis", "topK", [x([2, 3])], {"k": 4, "axis": 1},
        'option "k": 4 exceeds dimension 1 (3)', nout=2)
invalid("topK-index-type", "topK", [x([2, 3])],
        {"k": 1, "axis": 1, "outputDataType": "float32"},
        "data type float32 is not allowed", nout=2)
invalid("topK-one-output", "topK", [x([2, 3])], {"k": 1, "axis": 1},
        "topK produces 2 outputs here, the node names 1")


# nonMaxSuppression: ONNX's greedy rule, written out plainly: per batch
# and class, the boxes above the score threshold by score (ties by
# index), each kept unless its IoU with a kept one exceeds the
# threshold, at most max of them; rows (batch, class, box), padded
# to the bound with -1, and the shape they fill ([count, 3]).
def nms_ref(boxes, scores, mx, iou, st=None, center=False):
    def corners(b):
        if center:
            x, y, w, h = (float(v) for v in b)
            return y - h / 2, x - w / 2, y + h / 2, x + w / 2
        y1, x1, y2, x2 = (float(v) for v in b)
        return min(y1, y2), min(x1, x2), max(y1, y2), max(x1, x2)

    def over(a, b):
        a, b = corners(a), corners(b)
        h = min(a[2], b[2]) - max(a[0], b[0])
        w = min(a[3], b[3]) - max(a[1], b[1])
        if h <= 0 or w <= 0:
            return False
        inter = h * w
        u = ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1])
             - inter)
        return u > 0 and inter / u > iou
    nb, nc, n = scores.shape
    rows = []
    for b in range(nb):
        for c in range(nc):
            cand = [j for j in range(n) if st is None or scores[b, c, j] > st]
            cand.sort(key=lambda j: (-float(scores[b, c, j]), j))
            kept = []
            for j in cand:
                if len(kept) < mx and not any(over(boxes[b, k], boxes[b, j])
                                              for k in kept):
                    kept.append(j)
            rows += [[b, c, j] for j in kept]
    bound = nb * nc * min(mx, n)
    out = np.full((bound, 3), -1, np.int64)
    if rows:
        out[:len(rows)] = rows
    return [out, np.array([len(rows), 3], np.int64)]


# overlapping boxes with flipped corners (y2 < y1), two batches and
# three classes, a score threshold that drops some and a cap that
# stops others, IoU exactly at the threshold (kept: only more than it
# suppresses), centre-point boxes, and no threshold at all
NMSB = [[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [1, 1, 0, 0], [0, 10, 1, 11],
         [0, 10.5, 1, 11.5], [0, 0.5, 1, 1.5]],
        [[5, 5, 7, 7], [5, 6, 7, 8], [0, 0, 1, 1], [0, 0, 1, 1],
         [3, 3, 4, 4], [6, 6, 5, 5]]]
case("nonMaxSuppression-classes", "nonMaxSuppression",
     [("boxes", f32, [2, 6, 4], NMSB), ("scores", f32, [2, 3, 6], "unit")],
     {"maxOutputBoxesPerClass": 3, "iouThreshold": 0.4,
      "scoreThreshold": -0.3}, nout=2,
     ref=lambda a, c: nms_ref(a["boxes"], a["scores"], 3, 0.4, -0.3))
# [0,0,2,1] and [0,1,2,2] against [0,0,2,2]: IoU 0.5 each, kept at 0.5
case("nonMaxSuppression-iou-equal", "nonMaxSuppression",
     [("boxes", f32, [1, 3, 4], [[[0, 0, 2, 2], [0, 0, 2, 1],
                                  [0, 1, 2, 2]]]),
      ("scores", f32, [1, 1, 3], [[[0.9, 0.8, 0.7]]])],
     {"maxOutputBoxesPerClass": 5, "iouThreshold": 0.5}, nout=2,
     ref=lambda a, c: nms_ref(a["boxes"], a["scores"], 5, 0.5))
case("nonMaxSuppression-center", "nonMaxSuppression",
     [("boxes", f32, [1, 4, 4], [[[0.5, 0.5, 1, 1], [0.6, 0.5, 1, 1],
                                  [5, 5, 2, 2], [5.5, 5, 2, 1]]]),
      ("scores", f32, [1, 2, 4], "unit")],
     {"maxOutputBoxesPerClass": 2, "iouThreshold": 0.3,
      "centerPointBox": True}, nout=2,
     ref=lambda a, c: nms_ref(a["boxes"], a["scores"], 2, 0.3,
                              center=True))
invalid("nonMaxSuppression-box-width", "nonMaxSuppression",
        [("boxes", f32, [1, 3, 5], "n"), ("scores", f32, [1, 1, 3], "n")],
        {"maxOutputBoxesPerClass": 1},
        'input "boxes" [1, 3, 5] is not [batches, boxes, 4]', nout=2)
invalid("nonMaxSuppression-scores", "nonMaxSuppression",
        [("boxes", f32, [1, 3, 4], "n"), ("scores", f32, [1, 2, 4], "n")],
        {"maxOutputBoxesPerClass": 1},
        'input "scores" [1, 2, 4] is not [1, classes, 3]', nout=2)


# gridSample: ONNX's GridSample written out point by point in Python:
# coordinates from [-1, 1] to pixels (corner or centre aligned),
# rounded half to even for nearest; out of the borders clamped or
# reflected, and each tap read as 0 (zeros), clamped (border) or
# reflected (reflection); bicubic with A = -0.75.
def grid_sample_ref(x, grid, mode, pad, ac):
    n, c, h, w = x.shape
    _, ho, wo, _ = grid.shape
    lo_y, hi_y = (0, h - 1) if ac else (-0.5, h - 0.5)
    lo_x, hi_x = (0, w - 1) if ac else (-0.5, w - 0.5)

    def reflect(v, lo, hi):
        r = hi - lo
        if v < lo:
            k, m = divmod(lo - v, r)
            return lo + m if int(k) % 2 == 0 else hi - m
        if v > hi:
            k, m = divmod(v - hi, r)
            return hi - m if int(k) % 2 == 0 else lo + m
        return v

    def tap(p, i, j):
        if pad == "zeros":
            return p[i, j] if 0 <= i < h and 0 <= j < w else 0.0
        if pad == "reflection":
            i, j = int(reflect(i, lo_y, hi_y)), int(reflect(j, lo_x, hi_x))
        return p[min(max(i, 0), h - 1), min(max(j, 0), w - 1)]

    def cubic(t):
        a = -0.75

        def k(d):
            d = abs(d)
            if d <= 1:
                return (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1
            return a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a
        return [k(t + 1), k(t), k(1 - t), k(2 - t)]
    y = np.zeros((n, c, ho, wo))
    for b in range(n):
        for oy in range(ho):
            for ox in range(wo):
                gx, gy = (float(v) for v in grid[b, oy, ox])
                px = (gx + 1) / 2 * (w - 1) if ac else ((gx + 1) * w - 1) / 2
                py = (gy + 1) / 2 * (h - 1) if ac else ((gy + 1) * h - 1) / 2
                if mode == "nearest":
                    px, py = float(np.rint(px)), float(np.rint(py))
                if not (lo_x <= px <= hi_x and lo_y <= py <= hi_y):
                    if pad == "border":
                        px = min(max(px, 0), w - 1)
                        py = min(max(py, 0), h - 1)
                    elif pad == "reflection":
                        px = reflect(px, lo_x, hi_x)
                        py = reflect(py, lo_y, hi_y)
                for ch in range(c):
                    p = x[b, ch]
                    if mode == "nearest":
                        v = tap(p, int(py), int(px))
                    elif mode == "bilinear":
                        i, j = int(np.floor(py)), int(np.floor(px))
                        ty, tx = py - i, px - j
                        v = ((1 - ty) * (1 - tx) * tap(p, i, j) +
                             (1 - ty) * tx * tap(p, i, j + 1) +
                             ty * (1 - tx) * tap(p, i + 1, j) +
                             ty * tx * tap(p, i + 1, j + 1))
                    else:
                        i, j = int(np.floor(py)), int(np.floor(px))
                        ky, kx = cubic(py - i), cubic(px - j)
                        v = sum(ky[s] * kx[t] * tap(p, i - 1 + s, j - 1 + t)
                                for s in range(4) for t in range(4))
                    y[b, ch, oy, ox] = v
    return y


# a grid reaching past [-1, 1] (to +-1.7), so every padding mode is
# exercised on both sides, two batches (the grid's own per batch), a
# non-square plane
for mode in ("bilinear", "nearest", "bicubic"):
    for pad in ("zeros", "border", "reflection"):
        for ac in (False, True):
            name = "gridSample-%s-%s%s" % (mode, pad, "-corners" if ac else "")
            case(name, "gridSample",
                 [x([2, 2, 3, 5]), ("grid", f32, [2, 4, 3, 2],
                                    list(np.linspace(-1.7, 1.7, 48)))],
                 {"mode": mode, "paddingMode": pad, "alignCorners": ac},
                 ref=lambda a, c, mode=mode, pad=pad, ac=ac:
                 grid_sample_ref(a["x"], a["grid"], mode, pad, ac),
                 tol=1e-4)
invalid("gridSample-grid", "gridSample",
        [x([1, 2, 3, 3]), ("grid", f32, [1, 4, 4, 3], "n")], {},
        'input "grid" [1, 4, 4, 3] is not [1, Ho, Wo, 2]')


# roiAlign: ONNX's RoiAlign per bin and sample, in plain Python: a grid
# of samples per bin (the sampling ratio, or ceil of the bin's size),
# each bilinear from the pixels around it (clamped at the far edge, 0
# past a pixel outside), averaged, or with mode max the largest
# weighted tap of any sample.
def roi_align_ref(x, rois, bi, oh, ow, sr, scale, mode, half):
    n, c, h, w = x.shape
    off = 0.5 if half else 0.0
    y = np.zeros((len(rois), c, oh, ow))
    for r, (x1, y1, x2, y2) in enumerate(rois.astype(np.float64)):
        sx, sy = x1 * scale - off, y1 * scale - off
        rw, rh = x2 * scale - off - sx, y2 * scale - off - sy
        if not half:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = sr if sr > 0 else int(np.ceil(rh / oh))
        gw = sr if sr > 0 else int(np.ceil(rw / ow))
        for ch in range(c):
            p = x[int(bi[r]), ch].astype(np.float64)
            for ph in range(oh):
                for pw in range(ow):
                    taps = []
                    for iy in range(gh):
                        for ix in range(gw):
                            yy = sy + ph * bh + (iy + 0.5) * bh / gh
                            xx = sx + pw * bw + (ix + 0.5) * bw / gw
                            if yy < -1 or yy > h or xx < -1 or xx > w:
                                taps.append([0.0] * 4)
                                continue
                            yy, xx = max(yy, 0.0), max(xx, 0.0)
                            yl, xl = int(yy), int(xx)
                            yh, xh = min(yl + 1, h - 1), min(xl + 1, w - 1)
                            if yl >= h - 1:
                                yl = yh = h - 1
                                yy = float(yl)
                            if xl >= w - 1:
                                xl = xh = w - 1
                                xx = float(xl)
                            ly, lx = yy - yl, xx - xl
                            taps.append([(1 - ly) * (1 - lx) * p[yl, xl],
                                         (1 - ly) * lx * p[yl, xh],
                                         ly * (1 - lx) * p[yh, xl],
                                         ly * lx * p[yh, xh]])
                    if mode == "max":
                        y[r, ch, ph, pw] = max(max(t) for t in taps)
                    else:
                        y[r, ch, ph, pw] = sum(map(sum, taps)) / max(
                            gh * gw, 1)
    return y


# boxes inside, across the edge and past it, one smaller than a pixel;
# adaptive and fixed sampling, both coordinate modes, both reductions
ROIS = [[0.5, 0.5, 3.5, 2.5], [-1.0, 1.0, 6.5, 4.0], [2.2, 2.1, 2.6, 2.4],
        [4.0, 0.0, 9.0, 7.0]]
for mode in ("avg", "max"):
    for half in (True, False):
        for sr in (0, 2):
            name = "roiAlign-%s-%s-sr%d" % (mode, "half" if half else
                                            "output-half", sr)
            o = {"outputHeight": 3, "outputWidth": 2, "samplingRatio": sr,
                 "spatialScale": 0.75, "mode": mode,
                 "coordinateTransformationMode":
                     "halfPixel" if half else "outputHalfPixel"}
            case(name, "roiAlign",
                 [x([2, 3, 5, 6]), ("rois", f32, [4, 4], ROIS),
                  ("bi", i64, [4], [0, 1, 1, 0])], o,
                 ref=lambda a, c, o=o, half=half, mode=mode, sr=sr:
                 roi_align_ref(a["x"], a["rois"], a["bi"], 3, 2, sr, 0.75,
                               mode, half), tol=1e-4)
invalid("roiAlign-indices", "roiAlign",
        [x([1, 2, 4, 4]), ("rois", f32, [2, 4], "n"),
         ("bi", i64, [3], "uidx:1")], {},
        'input "batchIndices" [3] is not [2]')


# nonZero: np.nonzero's indices, [rank, count] packed at the front of
# the bound [rank, numel], -1 after; and that shape.  NaN and -0.0:
# NaN is nonzero, -0.0 is zero; int64 past 2^53 whose float is not 0.
def non_zero_ref(a):
    nz = np.array(np.nonzero(a), np.int64).reshape(a.ndim, -1)
    out = np.full(a.ndim * a.size, -1, np.int64)
    out[:nz.size] = nz.ravel()
    return [out.reshape(a.ndim, a.size), np.array(nz.shape, np.int64)]


case("nonZero-float", "nonZero",
     [x([2, 3, 2], kind=[0, 1.5, NAN, -0.0, 0, 0, 2, 0, 0, -3, 0, INF])],
     nout=2, ref=lambda a, c: non_zero_ref(a["x"]))
case("nonZero-int64", "nonZero", [x([5], i64, kind=[0, 2 ** 60, 0, -1, 0])],
     nout=2, ref=lambda a, c: non_zero_ref(a["x"]))
case("nonZero-none", "nonZero", [x([2, 2], u8, kind=[0, 0, 0, 0])],
     nout=2, ref=lambda a, c: non_zero_ref(a["x"]))
invalid("nonZero-scalar", "nonZero", [x([])], {},
        'input "input" is a scalar', nout=2)


# unique: np.unique (sorted; by first occurrence through its
# return_index), the slices packed at the front of the bound (zeros
# after), first indices and counts padded with -1 and 0, the inverse,
# and the three actual shapes.
def unique_ref(a, axis, sorted_):
    flat = axis is None
    v = a.ravel() if flat else a
    ax = 0 if flat else axis
    y, idx, inv, cnt = np.unique(v, return_index=True, return_inverse=True,
                                 return_counts=True, axis=None if flat
                                 else ax)
    inv = inv.ravel()
    if not sorted_:
        order = np.argsort(idx, kind="stable")
        y, idx, cnt = np.take(y, order, axis=ax), idx[order], cnt[order]
        inv = np.argsort(order)[inv]
    n, u = v.shape[ax], len(idx)
    yb = np.zeros(v.size, a.dtype)
    yb[:y.size] = y.ravel()

    def pad(z, fill):
        return np.r_[z, np.full(n - u, fill)].astype(np.int64)
    return [yb.reshape(v.shape), pad(idx, -1), inv.astype(np.int64),
            pad(cnt, 0), np.array(y.shape, np.int64),
            np.array([u], np.int64), np.array([u], np.int64)]


# repeats, sorted and by first occurrence, flat and along the middle
# axis of 3-D (slices compared item by item), int64 past 2^53
UQ = [3, 1, 3, 2, 1, 3, 0, 2]
for srt in (True, False):
    tag = "sorted" if srt else "first"
    case("unique-flat-" + tag, "unique", [x([2, 4], i32, kind=UQ)],
         {"sorted": srt}, nout=7,
         ref=lambda a, c, srt=srt: unique_ref(a["x"], None, srt))
    case("unique-axis1-" + tag, "unique",
         [x([2, 4, 2], kind=[1, 2, 0, 0, 1, 2, 5, 5, 3, 4, 1, 1, 3, 4,
                             1, 0])],
         {"axis": 1, "sorted": srt}, nout=7,
         ref=lambda a, c, srt=srt: unique_ref(a["x"], 1, srt))
case("unique-int64-exact", "unique",
     [x([4], i64, kind=[2 ** 60 + 1, 2 ** 60, 2 ** 60 + 1, 2 ** 60])],
     {}, nout=7, ref=lambda a, c: unique_ref(a["x"], None, True))
invalid("unique-axis", "unique", [x([2, 3])], {"axis": 2},
        'option "axis": 2 is out of range', nout=7)

# ---- nnl's extended types beyond WebNN (float64, int16, uint16,
# bfloat16; common/core/dtype.h) ----
# float64 computes in double: the references are NumPy's float64 and
# the tolerance 1e-12 (run.py), which a kernel rounding through float
# (7 digits) fails.  Values of the standard normal and around 1e6, so
# that float's rounding shows even in a sum.
f64, i16, u16, bf16 = "float64", "int16", "uint16", "bfloat16"
for op, fn in list(BIN.items()) + [("div", np.divide), ("pow", np.power)]:
    case(op + "-float64", op, [("a", f64, [2, 3, 4], "pos"),
                               ("b", f64, [3, 1], "pos")],
         ref=lambda a, c, fn=fn: fn(a["a"], a["b"]))
case("add-float64-digits", "add",
     [("a", f64, [3], [1e6 + 0.1, 1e15 + 1, 1 / 3]),
      ("b", f64, [3], [1e-7, 2.0, 1 / 7])],
     ref=lambda a, c: a["a"] + a["b"])
for op, fn, kind in (("exp", np.exp, "n"), ("log", np.log, "pos"),
                     ("sqrt", np.sqrt, "pos"), ("sin", np.sin, "n"),
                     ("tanh", np.tanh, "n"), ("floor", np.floor, "n"),
                     ("neg", np.negative, "n"), ("abs", np.abs, "n")):
    case(op + "-float64", op, [x([2, 5], f64, kind)],
         ref=lambda a, c, fn=fn: fn(a["x"]))
case("sigmoid-float64", "sigmoid", [x([7], f64)],
     ref=lambda a, c: 1 / (1 + np.exp(-a["x"])))
case("softmax-float64", "softmax", [x([2, 5], f64)], {"axis": 1},
     ref=lambda a, c: np.exp(a["x"]) / np.exp(a["x"]).sum(1, keepdims=True))
case("reduceSum-float64", "reduceSum",
     [x([4, 3], f64, [1e8, 1, 2, 0.1, 0.2, 0.3, 1e-8, 3, 4, 5, 6, 7])],
     {"axes": [0]}, ref=lambda a, c: a["x"].sum(0))
case("reduceLogSumExp-float64", "reduceLogSumExp", [x([3, 4], f64)],
     {"axes": [1]}, ref=lambda a, c: np.log(np.exp(a["x"]).sum(1)))
case("reduceMean-float64", "reduceMean", [x([2, 3, 4], f64)],
     {"axes": [0, 2]}, ref=lambda a, c: a["x"].mean((0, 2)))
case("cumulativeSum-float64", "cumulativeSum", [x([3, 4], f64)],
     {"axis": 1}, ref=lambda a, c: np.cumsum(a["x"], 1))
case("transpose-float64", "transpose", [x([2, 3, 4], f64)],
     {"permutation": [2, 0, 1]},
     ref=lambda a, c: np.transpose(a["x"], (2, 0, 1)))
case("concat-float64", "concat", [("p", f64, [2, 1], "n"),
                                  ("q", f64, [2, 3], "n")], {"axis": 1},
     ref=lambda a, c: np.concatenate([a["p"], a["q"]], 1))
case("where-float64", "where", [("c", u8, [3], [0, 1, 7]),
                                ("t", f64, [2, 3], "n"),
                                ("f", f64, [3], "n")],
     ref=lambda a, c: np.where(a["c"] != 0, a["t"], a["f"]))
case("greater-float64", "greater", ab([2, 3], [3], f64),
     ref=lambda a, c: (a["a"] > a["b"]).astype(np.uint8))
# casts: float64 to float32 rounds once (to nearest), to int32 truncates
# and saturates, from float32 is exact
case("cast-f64-f32", "cast", [x([4], f64, [1 / 3, 1e300, -2.5e-50, 7.0])],
     {"dataType": "float32"}, ref=lambda a, c: a["x"].astype(np.float32),
     odt=f32)
case("cast-f32-f64", "cast", [x([5], f32, [1 / 3, 0.1, -7.25, INF, NAN])],
     {"dataType": "float64"},
     ref=lambda a, c: a["x"].astype(np.float32).astype(np.float64), odt=f64)
case("cast-f64-i32", "cast",
     [x([6], f64, [-2.7, 2.7, 3e9, -3e9, 2147483647.9, NAN])],
     {"dataType": "int32"},
     ref=lambda a, c: np.array([-2, 2, 2147483647, -2147483648,
                                2147483647, 0], np.int32))
# float64 to float16 and bfloat16 round once: 1 + 2^-11 + 2^-40 is just
# above float16's tie (1 + 2^-10 up), 1 + 2^-8 + 2^-40 above
# bfloat16's (1 + 2^-7); through float the ties go down to 1
case("cast-f64-f16", "cast",
     [x([4], f64, [1 + 2 ** -11 + 2 ** -40, 1 + 2 ** -11, -(2 ** -30),
                   70000.0])],
     {"dataType": "float16"}, ref=lambda a, c: a["x"].astype(np.float16),
     odt=f16, tol=1e-12)
case("cast-f64-bf16", "cast",
     [x([3], f64, [1 + 2 ** -8 + 2 ** -40, 1 + 2 ** -8, -3.0])],
     {"dataType": "bfloat16"},
     ref=lambda a, c: np.array([1 + 2 ** -7, 1.0, -3.0]), odt=bf16)
case("cast-i16-f64", "cast", [x([5], i16, "full")], {"dataType": "float64"},
     ref=lambda a, c: a["x"].astype(np.float64), odt=f64)
# int16 and uint16: exact, wrapping as the type does; a kernel that
# computes in another width gives other bits at the ends of the range
case("add-int16-wrap", "add",
     [("a", i16, [4], [32767, -32768, 100, -1]),
      ("b", i16, [4], [1, -1, -200, 1])],
     ref=lambda a, c: (a["a"].astype(np.int64) + a["b"]).astype(np.int16))
case("div-int16", "div", [("a", i16, [4], [7, -7, 7, -7]),
                          ("b", i16, [4], [2, 2, -2, -2])],
     ref=lambda a, c: np.array([3, -3, -3, 3], np.int16))
case("max-uint16", "max", ab([2, 3], [3], u16),
     ref=lambda a, c: np.maximum(a["a"], a["b"]))
case("min-uint16-full", "min",
     [("a", u16, [4], [65535, 0, 40000, 1]), ("b", u16, [4], [1, 65535,
                                                            30000, 1])],
     ref=lambda a, c: np.minimum(a["a"], a["b"]))
case("cast-i16-u16", "cast", [x([4], i16, [-1, 32767, -32768, 5])],
     {"dataType": "uint16"},
     ref=lambda a, c: np.array([65535, 32767, 32768, 5], np.uint16))
case("cast-f32-i16", "cast", [x([5], f32, [1e6, -1e6, -3.9, 3.9, NAN])],
     {"dataType": "int16"},
     ref=lambda a, c: np.clip(np.trunc(np.nan_to_num(a["x"], nan=0)),
                              -32768, 32767).astype(np.int16))
case("reduceSum-int16", "reduceSum", [x([3, 4], i16)], {"axes": [1]},
     ref=lambda a, c: a["x"].sum(1).astype(np.int16))
case("transpose-uint16", "transpose", [x([3, 5], u16, "full")],
     ref=lambda a, c: a["x"].T)
for d in ("left", "right"):
    fn = np.left_shift if d == "left" else np.right_shift
    case("bitShift-%s-uint16" % d, "bitShift",
         [("a", u16, [6], [1, 3, 65535, 256, 7, 40000]),
          ("b", u16, [6], [0, 1, 15, 8, 16, 3])], {"direction": d},
         ref=lambda a, c, fn=fn: np.where(a["b"] >= 16, 0, fn(
             a["a"].astype(np.uint64), np.minimum(a["b"], 15).astype(
                 np.uint64)) & 0xFFFF).astype(np.uint16))
# bfloat16, held as its bits: float32 to bfloat16 rounds to nearest,
# ties to even (1 + 2^-8 down to 1, 1 + 3 * 2^-8 up to 1 + 2^-6; a
# truncating cast gives 1 + 2^-7 for the second), overflow to infinity
case("cast-f32-bf16", "cast",
     [x([7], f32, [1 + 2 ** -8, 1 + 3 * 2 ** -8, 0.47892547, -1.0,
                   3.4e38, INF, NAN])],
     {"dataType": "bfloat16"}, ref=lambda a, c: a["x"], odt=bf16)
case("cast-bf16-f32", "cast", [x([2, 3], bf16)], {"dataType": "float32"},
     ref=lambda a, c: a["x"], odt=f32)
case("add-bfloat16", "add", ab([2, 3], [3], bf16),
     ref=lambda a, c: a["a"].astype(np.float32) + a["b"].astype(np.float32),
     odt=bf16)
case("relu-bfloat16", "relu", [x([6], bf16)],
     ref=lambda a, c: np.maximum(a["x"], 0), odt=bf16)
# the heavy kernels stay float32 and float16
invalid("conv2d-float64", "conv2d", [x([1, 1, 3, 3], f64),
                                     ("w", f64, [1, 1, 2, 2], "n")], {},
        "data type float64 is not allowed")
invalid("matmul-bfloat16", "matmul", ab([2, 2], [2, 2], bf16), {},
        "data type bfloat16 is not allowed")


# ---- nnl's integer products: matMulInteger, conv2dInteger ----
# The products in int64 by NumPy, then wrapped to int32 (ONNX's int32
# sums).  Full-range 8-bit data with sums of hundreds of terms pass
# 2^24, where a float32 sum is no longer exact: a kernel that sums in
# float gives other integers; zero points per row, per column and per
# channel (broadcast) against a kernel that reads them at the wrong
# stride; int8 against uint8 mixed.
def _shifted(a, z):
    return a.astype(np.int64) - z.astype(np.int64)


def mm_int_ref(a):
    return np.matmul(_shifted(a["a"], a["az"]),
                     _shifted(a["b"], a["bz"])).astype(np.int32)


for name, (ta, sa, tb, sb, sza, szb) in {
        "uint8-rows-cols": (u8, [3, 5], u8, [5, 4], [3, 1], [4]),
        "int8-batch": (i8, [2, 1, 3, 6], i8, [3, 6, 2], [], []),
        "uint8-int8": (u8, [4, 7], i8, [2, 7, 3], [1], [2, 1, 3]),
        "exact-k600": (u8, [2, 600], u8, [600, 3], [], [])}.items():
    case("matMulInteger-" + name, "matMulInteger",
         [("a", ta, sa, "full"), ("b", tb, sb, "full"),
          ("az", ta, sza, "full"), ("bz", tb, szb, "full")],
         ref=lambda a, c: mm_int_ref(a))
invalid("matMulInteger-float", "matMulInteger",
        [("a", f32, [2, 3], "n"), ("b", u8, [3, 2], "n"),
         ("az", f32, [], "n"), ("bz", u8, [], "n")], {},
        'input "a": data type float32 is not allowed')
invalid("matMulInteger-zero-point", "matMulInteger",
        [("a", u8, [3, 5], "n"), ("b", u8, [5, 2], "n"),
         ("az", u8, [3], "n"), ("bz", u8, [], "n")], {},
        'input "aZeroPoint" [3] does not broadcast to input "a" [3, 5]')


# conv2dInteger by its definition on the shifted operands: padding is
# 0 once shifted (the input's zero point before), each output channel
# of a group over that group's input channels only.
def conv_int_ref(x, w, pad, st, dil, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.zeros((n, c, h + pad[0] + pad[1], wd + pad[2] + pad[3]),
                  np.int64)
    xp[:, :, pad[0]:pad[0] + h, pad[2]:pad[2] + wd] = x
    oh = (xp.shape[2] - (kh - 1) * dil[0] - 1) // st[0] + 1
    ow = (xp.shape[3] - (kw - 1) * dil[1] - 1) // st[1] + 1
    y = np.zeros((n, o, oh, ow), np.int64)
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(oh):
            for j in range(ow):
                win = xp[:, g * cg:(g + 1) * cg,
                         i * st[0]:i * st[0] + (kh - 1) * dil[0] + 1:dil[0],
                         j * st[1]:j * st[1] + (kw - 1) * dil[1] + 1:dil[1]]
                y[:, oc, i, j] = (win * w[oc]).sum(axis=(1, 2, 3))
    return y.astype(np.int32)


for name, (dt, sx, sw, szw, o) in {
        "uint8-pad-stride": (u8, [1, 2, 5, 6], [3, 2, 3, 2], [3, 1, 1, 1],
                             {"padding": [1, 0, 2, 1], "strides": [2, 1],
                              "dilations": [1, 2]}),
        "int8-groups": (i8, [2, 4, 4, 4], [4, 2, 2, 2], [], {"groups": 2}),
        "exact-c64": (u8, [1, 64, 3, 3], [2, 64, 3, 3], [2, 1, 1, 1], {})
}.items():
    case("conv2dInteger-" + name, "conv2dInteger",
         [("x", dt, sx, "full"), ("w", dt, sw, "full"),
          ("xz", dt, [], "full"), ("wz", dt, szw, "full")], o,
         ref=lambda a, c, o=o: conv_int_ref(
             _shifted(a["x"], a["xz"]), _shifted(a["w"], a["wz"]),
             o.get("padding", [0] * 4), o.get("strides", [1, 1]),
             o.get("dilations", [1, 1]), o.get("groups", 1)))
invalid("conv2dInteger-groups", "conv2dInteger",
        [("x", u8, [1, 4, 3, 3], "n"), ("w", u8, [2, 4, 1, 1], "n"),
         ("xz", u8, [], "n"), ("wz", u8, [], "n")], {"groups": 2},
        "filter [2, 4, 1, 1] does not fit input [1, 4, 3, 3] in 2 groups")


# requantizeLinear: int32 times the scale plus the zero point in
# double, np.rint's ties to even (x * 0.5 of odd x: 0.5 to 0, 1.5 to 2,
# -2.5 to -2; rounding half up or away from zero differs), saturated
# (not wrapped) at the 8-bit range.
def requant_ref(a, lo, hi, dt):
    v = a["x"].astype(np.float64) * a["s"].astype(np.float64) + a["z"]
    return np.clip(np.rint(v), lo, hi).astype(dt)


case("requantizeLinear-ties-uint8", "requantizeLinear",
     [("x", i32, [10], [1, 3, -5, 5, 7, 9, -1, 1000, -1000, 21]),
      ("s", f32, [], [0.5]), ("z", u8, [], [10])],
     ref=lambda a, c: requant_ref(a, 0, 255, np.uint8))
case("requantizeLinear-int8-per-column", "requantizeLinear",
     [("x", i32, [2, 3, 4], "full"), ("s", f32, [4], [1e-9, 2e-8, 3e-8,
                                                       1.5e-10]),
      ("z", i8, [1, 4], [0, -3, 5, 127])],
     ref=lambda a, c: requant_ref(a, -128, 127, np.int8))
invalid("requantizeLinear-scale", "requantizeLinear",
        [("x", i32, [2, 3], "n"), ("s", f32, [2], "pos"),
         ("z", u8, [], "n")], {},
        'input "scale" [2] or "zeroPoint" [] does not broadcast to input '
        '[2, 3]')


# tfIdfVectorizer: ONNX's TfIdfVectorizer by its description: the
# pool's n-grams in a dictionary, each row's n-grams of n items with
# skips of 0 to maxSkipCount between them (a 1-gram once) looked up
# and counted; idf gives the weight where the count is not 0, tfIdf
# count times weight.
def tfidf_ref(x, mode, lo, hi, skip, counts, idx, pool, weights=None):
    rows = x.reshape(-1, x.shape[-1])
    grams, j = {}, 0
    for g, start in enumerate(counts):
        end = counts[g + 1] if g + 1 < len(counts) else len(pool)
        for p in range(start, end, g + 1):
            grams[tuple(pool[p:p + g + 1])] = idx[j]
            j += 1
    out = np.zeros((len(rows), max(idx) + 1))
    for r, row in enumerate(rows):
        for n in range(lo, hi + 1):
            for s in ([0] if n == 1 else range(skip + 1)):
                for i in range(len(row) - (n - 1) * (s + 1)):
                    t = tuple(int(v) for v in row[i:i + (n - 1) * (s + 1)
                                                  + 1:s + 1])
                    if t in grams:
                        out[r, grams[t]] += 1
    w = np.ones(out.shape[1]) if weights is None else np.array(weights)
    if mode == "idf":
        out = np.where(out > 0, w, 0)
    elif mode == "tfIdf":
        out = out * w
    return out.reshape(x.shape[:-1] + (out.shape[1],)).astype(np.float32)


TFIDF = {
    "tf-uni-bi-skip2": (i64, [2, 9], {
        "mode": "tf", "minGramLength": 1, "maxGramLength": 2,
        "maxSkipCount": 2, "ngramCounts": [0, 4],
        "ngramIndexes": [3, 0, 5, 1, 2, 4, 7, 6],
        "pool": [0, 1, 2, 3, 0, 1, 1, 1, 2, 3, 3, 0]}),
    "idf-weights-1d": (i32, [12], {
        "mode": "idf", "minGramLength": 1, "maxGramLength": 2,
        "maxSkipCount": 0, "ngramCounts": [0, 3],
        "ngramIndexes": [0, 1, 2, 3, 4], "pool": [1, 2, 3, 1, 2, 4, 4],
        "weights": [0.5, 1.25, 2.0, 3.5, 0.75]}),
    "tfIdf-bi-tri-skip1": (i64, [3, 10], {
        "mode": "tfIdf", "minGramLength": 2, "maxGramLength": 3,
        "maxSkipCount": 1, "ngramCounts": [0, 2, 6],
        "ngramIndexes": [0, 1, 2, 3, 4, 5, 6],
        "pool": [0, 1, 0, 1, 1, 2, 2, 3, 1, 0, 2, 2, 2, 1, 0],
        "weights": [9, 9, 1.5, 2.0, 0.25, 4.0, 3.0]}),
}
for name, (dt, shape, o) in TFIDF.items():
    case("tfIdfVectorizer-" + name, "tfIdfVectorizer",
         [("x", dt, shape, "uidx:4")], o,
         ref=lambda a, c, o=o: tfidf_ref(
             a["x"], o["mode"], o["minGramLength"], o["maxGramLength"],
             o["maxSkipCount"], o["ngramCounts"], o["ngramIndexes"],
             o["pool"], o.get("weights")))
invalid("tfIdfVectorizer-indexes", "tfIdfVectorizer",
        [("x", i64, [5], "uidx:3")],
        {"ngramCounts": [0, 2], "ngramIndexes": [0, 1], "pool": [1, 2, 1, 2]},
        "2 ngramIndexes for 3 n-grams in the pool")
# ---- nnl's numeric ops: det, dft, the float64 matmul ----
# matmul of float64 in double (rt/nn/linalg.c): values around 1e6 and
# below 1, whose float sums lose digits the 1e-12 tolerance sees; batch
# dims that broadcast both ways, and a vector-like K of 1
case("matmul-float64", "matmul",
     [("a", f64, [2, 1, 3, 4], "n"), ("b", f64, [3, 4, 5], "n")],
     ref=lambda a, c: np.matmul(a["a"], a["b"]))
case("matmul-float64-digits", "matmul",
     [("a", f64, [2, 3], [1e6, 1e-3, 1 / 3, 7.0, -1e6, 0.1]),
      ("b", f64, [3, 2], [1 / 7, 1e6, 3.0, 1e-9, -2.5, 1.0])],
     ref=lambda a, c: a["a"] @ a["b"])
case("matmul-float64-k1", "matmul", ab([4, 1], [1, 3], f64),
     ref=lambda a, c: a["a"] @ a["b"])
# det: LU with partial pivoting vs NumPy's det.  A zero first pivot (a
# kernel that does not pivot divides by it), two swaps and one (a
# kernel that forgets the sign is wrong on one), a singular matrix (0,
# not NaN), a batch of random ones (each matrix its own), float64 to
# 1e-12 and float16
PIV = [[0, 1, 2], [1, 0, 3], [4, -3, 8],
       [0, 2, 1], [3, 1, 0], [1, 0, 5],
       [1, 2, 3], [2, 4, 6], [0, 1, 1]]
case("det-pivot", "det", [x([3, 3, 3], f32, PIV)],
     ref=lambda a, c: np.linalg.det(a["x"].astype(np.float64)))
case("det-batch", "det", [x([2, 3, 4, 4])],
     ref=lambda a, c: np.linalg.det(a["x"].astype(np.float64)))
case("det-1x1", "det", [x([3, 1, 1])],
     ref=lambda a, c: a["x"].reshape(3).astype(np.float64))
case("det-float64", "det", [x([2, 5, 5], f64)],
     ref=lambda a, c: np.linalg.det(a["x"]))
case("det-float16", "det", [x([2, 2], f16)],
     ref=lambda a, c: np.linalg.det(a["x"].astype(np.float64)))
invalid("det-not-square", "det", [x([2, 3])], {},
        'input "input" [2, 3] is not [..., M, M]')


# dft vs NumPy's FFT: [..., re, im] of np.fft.fft (ifft when inverse,
# rfft when onesided) along the axis, the signal cut or zero-padded to
# dftLength.  An axis in the middle with dims on both sides (the
# strides), a complex input (its imaginary part read), odd and even
# lengths.
def dft_ref(v, axis, n=None, inv=False, one=False):
    s = v[..., 0] + 1j * v[..., 1] if v.shape[-1] == 2 else v[..., 0]
    s = s.astype(np.complex128)
    y = (np.fft.rfft(s.real, n, axis) if one else
         np.fft.ifft(s, n, axis) if inv else np.fft.fft(s, n, axis))
    return np.stack([y.real, y.imag], -1)


case("dft-real-middle", "dft", [x([2, 5, 3, 1])], {"axis": 1},
     ref=lambda a, c: dft_ref(a["x"], 1))
case("dft-complex-inverse", "dft", [x([4, 6, 2])],
     {"axis": 1, "inverse": True},
     ref=lambda a, c: dft_ref(a["x"], 1, inv=True))
case("dft-onesided-padded", "dft", [x([2, 7, 1])],
     {"axis": 1, "onesided": True, "dftLength": 10},
     ref=lambda a, c: dft_ref(a["x"], 1, 10, one=True))
case("dft-complex-cut", "dft", [x([3, 7, 2])],
     {"axis": 0, "dftLength": 2},
     ref=lambda a, c: dft_ref(a["x"], 0, 2))
case("dft-float64", "dft", [x([2, 9, 2], f64)], {"axis": 1},
     ref=lambda a, c: dft_ref(a["x"], 1), tol=1e-11)
invalid("dft-last-axis", "dft", [x([2, 3, 1])], {"axis": 2},
        'option "axis": 2 is not an axis of the signal')
invalid("dft-onesided-complex", "dft", [x([2, 4, 2])],
        {"axis": 1, "onesided": True},
        'option "onesided": only of a real forward transform')
invalid("dft-not-complex", "dft", [x([2, 4, 3])], {"axis": 1},
        'is not [..., 1] (real) nor [..., 2] (complex)')
# range: start + i * delta for max(ceil((limit - start) / delta), 0)
# items, at the front of its bound, zeros after; and that count.  The
# reference counts in the input's precision (float32's quotient in
# float32, as ONNX; integers exactly, beyond 2^53 too), computes each
# item in float64 / Python integers and rounds once.
def range_ref(a, bound):
    s, lim, d = (a[k].reshape(()) for k in ("s", "l", "d"))
    if s.dtype.kind == "f":
        n = int(max(np.ceil((lim - s) / d), 0))
        v = [float(s) + i * float(d) for i in range(n)]
    else:
        q, r = divmod(int(lim) - int(s), int(d))
        n = max(q + (r != 0), 0)
        v = [int(s) + i * int(d) for i in range(n)]
    out = np.zeros(bound, s.dtype)
    out[:n] = np.array(v, np.float64 if s.dtype.kind == "f" else object)
    return [out, np.array([n], np.int64)]


def sld(dt, s, lim, d):
    return [x([], dt, [s], "s"), x([], dt, [lim], "l"), x([], dt, [d], "d")]


# a fraction in the quotient rounds up (11/2 -> 6 items, not 5); a
# negative delta counts down (ceil(-13 / -4) = 4); int64 past 2^53
# exactly; a limit behind the start gives no item; a count equal to
# the bound fills it
case("range-float", "range", sld(f32, 1.5, 7, 0.5), {"bound": 16},
     nout=2, ref=lambda a, c: range_ref(a, 16))
case("range-float-fraction", "range", sld(f32, 0, 5.5, 1), {"bound": 9},
     nout=2, ref=lambda a, c: range_ref(a, 9))
case("range-int32-negative", "range", sld(i32, 10, -3, -4), {"bound": 8},
     nout=2, ref=lambda a, c: range_ref(a, 8))
case("range-int64-large", "range", sld(i64, 2 ** 60, 2 ** 60 + 10, 3),
     {"bound": 4}, nout=2, ref=lambda a, c: range_ref(a, 4))
case("range-empty", "range", sld(i64, 5, 1, 1), {"bound": 3}, nout=2,
     ref=lambda a, c: range_ref(a, 3))
invalid("range-types", "range",
        [x([], f32, name="s"), x([], i32, name="l"), x([], f32, name="d")],
        {"bound": 4}, 'input "limit" is int32, input "start" float32',
        nout=2)
invalid("range-not-scalar", "range",
        [x([], f32, name="s"), x([2], f32, name="l"), x([], f32, name="d")],
        {"bound": 4}, 'input "limit" [2] is not a scalar', nout=2)
invalid("range-bound-zero", "range", sld(f32, 0, 1, 1), {"bound": 0},
        'option "bound" is 0', nout=2)


# constantOfShape: value in the first prod(shape) items of [bound, 1,
# ...] (the shape's rank), zeros after; and the shape.  A dimension of
# 0 gives no item; the value rounds once into dataType.
def cos_ref(a, bound, value, dt):
    dims = [int(v) for v in a["s"]]
    out = np.zeros([bound] + [1] * (len(dims) - 1), dt)
    out.flat[:int(np.prod(dims))] = value
    return [out, np.array(dims, np.int64)]


case("constantOfShape-float", "constantOfShape", [x([2], i64, [2, 3], "s")],
     {"bound": 8, "value": 2.5}, nout=2, odt=None,
     ref=lambda a, c: cos_ref(a, 8, 2.5, np.float32))
case("constantOfShape-int8", "constantOfShape", [x([3], i64, [1, 4, 1], "s")],
     {"bound": 4, "value": -3, "dataType": "int8"}, nout=2,
     ref=lambda a, c: cos_ref(a, 4, -3, np.int8))
case("constantOfShape-zero", "constantOfShape", [x([3], i64, [3, 0, 2], "s")],
     {"bound": 5, "value": 7, "dataType": "int64"}, nout=2,
     ref=lambda a, c: cos_ref(a, 5, 7, np.int64))
# a dimension past the bound before a 0: no item, not an error (the
# kernel once checked the product of the dimensions before the 0)
case("constantOfShape-zero-after-large", "constantOfShape",
     [x([3], i64, [4, 0, 3], "s")],
     {"bound": 2, "value": 1.5}, nout=2,
     ref=lambda a, c: cos_ref(a, 2, 1.5, np.float32))
invalid("constantOfShape-int32-shape", "constantOfShape", [x([2], i32)],
        {"bound": 4}, 'input "shape"', nout=2)
invalid("constantOfShape-rank2-shape", "constantOfShape", [x([1, 2], i64)],
        {"bound": 4}, 'input "shape"', nout=2)
invalid("constantOfShape-empty-shape", "constantOfShape", [x([0], i64)],
        {"bound": 4}, 'is empty', nout=2)


# melWeightMatrix: ONNX's MelWeightMatrix as its reference computes it
# (numMelBins + 2 points evenly spaced in mel from the lower edge, in
# steps of the mel range over numMelBins + 2, each to the spectrum bin
# floor((dftLength + 1) hertz / sampleRate); band i a triangle over
# points i, i + 1, i + 2), at the front of [bound, 1] in dt, zeros
# after; and its shape.
def mel_ref(a, bound, dt):
    n, ln, rate = (int(a[k].reshape(())) for k in ("n", "len", "rate"))
    lo, hi = (float(a[k].reshape(())) for k in ("lo", "hi"))
    mel = [2595 * np.log10(1 + f / 700) for f in (lo, hi)]
    pts = np.arange(n + 2) * ((mel[1] - mel[0]) / (n + 2)) + mel[0]
    pts = ((ln + 1) * (700 * (10 ** (pts / 2595) - 1)) // rate).astype(int)
    bins = ln // 2 + 1
    w = np.zeros((bins, n))
    for i in range(n):
        a0, c0, b0 = pts[i:i + 3]
        if c0 == a0:
            w[c0, i] = 1
        for j in range(a0, c0 + 1) if c0 > a0 else ():
            w[j, i] = (j - a0) / (c0 - a0)
        for j in range(c0, b0):
            w[j, i] = (b0 - j) / (b0 - c0)
    out = np.zeros((bound, 1), dt)
    out[:w.size, 0] = w.ravel()
    return [out, np.array([bins, n], np.int64)]


def melins(it, ft, n, ln, rate, lo, hi):
    return [x([], it, [n], "n"), x([], it, [ln], "len"),
            x([], it, [rate], "rate"), x([], ft, [lo], "lo"),
            x([], ft, [hi], "hi")]


# bands narrower than a bin (a point repeated: the 1 at it), wider ones
# sloping over several bins; int32 counts with float16 edges into
# float16 filling its bound exactly; float64 throughout, a lower edge
# above 0 and the last bins past the last point (zeros)
case("melWeightMatrix-float", "melWeightMatrix",
     melins(i64, f32, 8, 16, 8192, 0, 4096), {"bound": 100}, nout=2,
     ref=lambda a, c: mel_ref(a, 100, np.float32))
case("melWeightMatrix-float16-full", "melWeightMatrix",
     melins(i32, f16, 5, 30, 16000, 300, 7000),
     {"bound": 80, "dataType": "float16"}, nout=2,
     ref=lambda a, c: mel_ref(a, 80, np.float16))
case("melWeightMatrix-float64", "melWeightMatrix",
     melins(i64, f64, 10, 64, 22050, 20, 6000),
     {"bound": 400, "dataType": "float64"}, nout=2,
     ref=lambda a, c: mel_ref(a, 400, np.float64))
invalid("melWeightMatrix-types", "melWeightMatrix",
        melins(i64, f32, 0, 0, 0, 0, 0)[:2] + [x([], i32, name="rate")] +
        melins(i64, f32, 0, 0, 0, 0, 0)[3:], {"bound": 4},
        'input "sampleRate" is int32, input "numMelBins" int64', nout=2)
invalid("melWeightMatrix-not-scalar", "melWeightMatrix",
        melins(i64, f32, 0, 0, 0, 0, 0)[:4] + [x([2], f32, name="hi")],
        {"bound": 4}, 'input "upperEdgeHertz" [2] is not a scalar', nout=2)
invalid("melWeightMatrix-int-output", "melWeightMatrix",
        melins(i64, f32, 0, 0, 0, 0, 0), {"bound": 4, "dataType": "int32"},
        'option "dataType"', nout=2)
invalid("melWeightMatrix-bound-zero", "melWeightMatrix",
        melins(i64, f32, 0, 0, 0, 0, 0), {"bound": 0},
        'option "bound" is 0', nout=2)
# ---- empty tensors (nnl-graph(5), Empty tensors) ----
# A node whose outputs hold no elements computes nothing: an add of a
# [0, 3] operand, a transpose, a split of an empty tensor.  One that
# reads an empty operand into values needs a value for no elements:
# NumPy's sum (0), product (1), their kin (log 0 = -inf), and a concat
# whose empty piece adds nothing.
case("add-empty", "add", ab([0, 3], [3]),
     ref=lambda a, c: a["a"] + a["b"])
case("transpose-empty", "transpose", [x([2, 0, 3], i32)],
     ref=lambda a, c: a["x"].transpose())
case("split-empty", "split", [x([2, 0, 4])], {"splits": 2, "axis": 2},
     nout=2, ref=lambda a, c: np.split(a["x"], 2, 2))
for op, fn in RED.items():
    if op in ("reduceMax", "reduceMin", "reduceMean"):
        continue
    case(op + "-empty-axis", op, [x([2, 0, 3])], {"axes": [1]},
         ref=lambda a, c, fn=fn: fn(a["x"].astype(np.float64), 1, False))
case("reduceLogSum-empty-axis", "reduceLogSum", [x([2, 0])], {"axes": [1]},
     ref=lambda a, c: np.log(a["x"].astype(np.float64).sum(1)))
case("reduceSum-empty-int32", "reduceSum", [x([0, 4], i32)], {"axes": [0]},
     ref=lambda a, c: a["x"].sum(0).astype(np.int32))
case("concat-empty-piece", "concat", [("p", f32, [2, 0], "n"),
                                      ("q", f32, [2, 3], "n")],
     {"axis": 1}, ref=lambda a, c: np.concatenate([a["p"], a["q"]], 1))
# no value for no elements: refused naming the node
for op in ("reduceMax", "reduceMin", "reduceMean"):
    invalid(op + "-empty-axis", op, [x([2, 0, 3])], {"axes": [1]},
            "input \"x\" is empty: %s has no value to give for no "
            "elements" % op)
invalid("matmul-empty-inner", "matmul", ab([2, 0], [0, 3]), {},
        "input \"a\" is empty: matmul has no value to give")

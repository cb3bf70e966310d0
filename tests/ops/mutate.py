#!/usr/bin/python3
"""mutate: plants small faults in the kernels one at a time and checks
that the op cases (tests/ops/run.py) catch each.

Usage: mutate.py [-v] [-j N] [--extra JSON]... [NAME...]
Each mutant of MUTANTS replaces one string, found exactly once, in one
source: a host kernel (common/host/kern_*.c, which prepares the parameters
nnl-run and nnl-emit-c both use), a runtime kernel (common/rt/*.c, in
libnnl for nnl-run and pasted by nnl-emit-c into generated C) or a
shape rule (common/middle/shape_*.c).  The sources and objects of the built
tree (make all) are copied to a temporary directory, and every mutant
is built there, so the tree's own files are never changed; only the
mutated file is compiled again and only the programs it concerns are
linked.  Each mutant is then tried in each of its modes, against the
cases it names:
  run  nnl-run built with the fault, the other programs the tree's;
       run.py --only CASES
  c    nnl-emit-c built with the fault (for a runtime kernel, in the
       code it pastes only: libnnl and so nnl-run stay sound);
       run.py --c --only CASES
  all  nnl-shape-infer, nnl-run, nnl-plan-memory and nnl-emit-c all
       built with the fault; run.py --c --only CASES
A mutant is killed when run.py fails in every one of its modes.  The
unmutated copy must first pass every case named.  -j N: mutants tried
at once (2), each worker in its own copy of the sources; -v: run.py's
output of every trial; --extra: one more mutant, a JSON object with
the fields of mutant() (name, path, old, new, cases, modes), to check
this script itself; NAME...: only the mutants so named.  Ends with "mutants:
N killed, M survived"; exits 1 if any survived, 2 on a mutant that no
longer applies or does not build.
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BIN = os.environ.get("NNL_BIN") or os.path.join(ROOT, "bin")
B = os.path.join(ROOT, "build")
RUN = os.path.join(ROOT, "tests", "ops", "run.py")
PROGS = ["nnl-shape-infer", "nnl-run", "nnl-plan-memory", "nnl-emit-c"]

HOST, RT = ("run", "c"), ("run", "c")
MUTANTS = []


def mutant(name, path, old, new, cases, modes):
    MUTANTS.append(dict(name=name, path=path, old=old, new=new,
                        cases=cases, modes=modes))


EW, KEW = "common/rt/elementwise/ew.c", "common/host/kern_ew.c"
# ---- runtime kernels (common/rt) ----
mutant("logicalAnd bitwise", EW, "case NNL_AND: return a != 0 && b != 0;",
       "case NNL_AND: return (double)((int64_t)a & (int64_t)b);",
       ["logicalAnd"], RT)
mutant("logicalOr bitwise", EW, "case NNL_OR: return a != 0 || b != 0;",
       "case NNL_OR: return (double)((int64_t)a | (int64_t)b);",
       ["logicalOr"], RT)
mutant("logicalXor bitwise", EW, "default: return (a != 0) != (b != 0);",
       "default: return (double)((int64_t)a ^ (int64_t)b);",
       ["logicalXor"], RT)
mutant("broadcast axes merged by a's strides alone", EW,
       "bs[k] == s->sb[q - 1] * s->d[q - 1]) {", "1) {",
       ["mul-broadcast-nchw-channel", "max-broadcast-middle",
        "min-broadcast-outer"], RT)
mutant("a broadcast value doubled in whole vectors", EW,
       "nnl_vstore(y + i, nnl_vbinop(op, nnl_vload(a + i),\n\t\t\t    vz));",
       "nnl_vstore(y + i, nnl_vbinop(op, nnl_vload(a + i),\n\t\t\t    vz + vz));",
       ["mul-broadcast-nchw-channel", "add-scalar"], RT)
# nnl's ops beyond WebNN (common/core/ops_nnl.def)
mutant("asin as acos", EW, "case NNL_U_ASIN: return NNL_M(asin)(x);",
       "case NNL_U_ASIN: return NNL_M(acos)(x);", ["asin"], RT)
mutant("bitShift past the width as a shift modulo 64", EW,
       "case NNL_SHL: return b >= 64 ? 0 : (int64_t)(a << b);",
       "case NNL_SHL: return (int64_t)(a << (b & 63));",
       ["bitShift-left-uint64"], RT)
LA = "common/rt/nn/linalg.c"
mutant("det without the sign of a row swap", LA, "d = -d;", "d = d;",
       ["det-pivot"], RT)
mutant("det without pivoting", LA,
       "if (fabs(m[r * n + c]) > fabs(m[p * n + c]))", "if (0)",
       ["det-pivot"], RT)
mutant("dft inverse without the 1 / n", LA, "re /= (double)n;",
       "re /= 1;", ["dft-complex-inverse"], RT)
mutant("dft reads the imaginary part as 0", LA,
       "double xi = cin == 2 ?", "double xi = 0 ?",
       ["dft-complex-inverse", "dft-complex-cut"], RT)
mutant("float64 matmul's sum from its second term", LA,
       "for (int64_t k = 0; k < K; k++)\n\t\t\t\t\ts +=",
       "for (int64_t k = 1; k < K; k++)\n\t\t\t\t\ts +=",
       ["matmul-float64", "matmul-float64-k1"], RT)
mutant("a batched product's batch of b as a's", "common/rt/rt.h",
       "*bi += c * bs[d];", "*bi += c * as[d];", ["matmul-float64"], RT)
mutant("bitShift right as left", KEW,
       'op += strcmp(dir, "right") == 0;', "op += 0;",
       ["bitShift-right-uint8"], HOST)
mutant("logicalNot flips bit 0", EW, "case NNL_U_LOGICALNOT: v = x == 0;",
       "case NNL_U_LOGICALNOT: v = x ^ 1;", ["logicalNot"], RT)
mutant("roundEven rounds half away from zero", EW,
       "case NNL_U_ROUNDEVEN: return nnl_roundeven(x);",
       "case NNL_U_ROUNDEVEN: return NNL_M(round)(x);", ["roundEven"], RT)
mutant("quantizeLinear rounds half away from zero", EW,
       "v = nnl_roundeven(v) + z;", "v = round(v) + z;",
       ["quantizeLinear", "quantizeLinear-int8"], RT)
mutant("quantizeLinear wraps instead of saturating", EW,
       "v = v < lo ? lo : v > hi ? hi : v;", "(void)lo; (void)hi;",
       ["quantizeLinear", "quantizeLinear-int8"], RT)
mutant("isNaN always false", EW, "case NNL_U_ISNAN: return isnan(x) != 0;",
       "case NNL_U_ISNAN: return 0;", ["isNaN", "isNaN-float16"], RT)
mutant("isInfinite sees +Inf only", EW,
       "case NNL_U_ISINF: return isinf(x) != 0;",
       "case NNL_U_ISINF: return x == INFINITY;",
       ["isInfinite", "isInfinite-float16"], RT)
mutant("cast float to int floors", EW,
       "double v = trunc(nnl_loadf(in[0], i, from)), lo, hi;",
       "double v = floor(nnl_loadf(in[0], i, from)), lo, hi;",
       ["cast-f32-i32", "cast-f16-i8"], RT)
mutant("cast float to int rounds", EW,
       "double v = trunc(nnl_loadf(in[0], i, from)), lo, hi;",
       "double v = rint(nnl_loadf(in[0], i, from)), lo, hi;",
       ["cast-f32-i32", "cast-f32-u8"], RT)
mutant("sign of 0 is 1", EW,
       "case NNL_U_SIGN: return x > 0 ? 1 : x < 0 ? -1 : x;",
       "case NNL_U_SIGN: return x >= 0 ? 1 : -1;", ["sign"], RT)
mutant("integer division floors", EW,
       "return z == -1 ? (int64_t)(0 - a) : x / z;",
       "return z == -1 ? (int64_t)(0 - a) :\n"
       "\t\t    x / z - (x % z != 0 && (x < 0) != (z < 0));",
       ["div-int32"], RT)
mutant("greaterOrEqual as not lesser", EW, "case NNL_GE: return a >= b;",
       "case NNL_GE: return !(a < b);", ["greaterOrEqual-float"], RT)
mutant("clamp bounds swapped", EW,
       "case NNL_U_CLAMP: return x < a ? a : x > b ? b : x;",
       "case NNL_U_CLAMP: return x < a ? b : x > b ? a : x;", ["clamp"], RT)
mutant("leakyRelu slope on the positive side", EW,
       "case NNL_U_LEAKYRELU: return x >= 0 ? x : a * x;",
       "case NNL_U_LEAKYRELU: return x >= 0 ? a * x : x;", ["leakyRelu"], RT)
mutant("softplus takes e^-x, not e^-|x|", "common/rt/f32-vmath/vmath.h",
       "return m + nnl_mlog1p01(nnl_mexp(-nnl_mabs(x)));",
       "return m + nnl_mlog1p01(nnl_mexp(-x));", ["softplus"], RT)
mutant("float16 softmax without its maximum taken out", EW,
       "m = v > m ? v : m;", "m = 0 * v;", ["softmax-large-float16"], RT)
mutant("softmax rows without their maximum taken out", EW,
       "float m = nnl_rowmax(x, n, 1), s = 0",
       "float m = 0 * nnl_rowmax(x, n, 1), s = 0",
       ["softmax-large", "softmax-row-large"], RT)
mutant("softmax columns without their maximum taken out", EW,
       "nnl_vf m = nnl_colmax(x, n, s, 1),",
       "nnl_vf m = 0 * nnl_colmax(x, n, s, 1),", ["softmax-cols-large"], RT)
mutant("a scalar broadcast over rows always the second operand", EW,
       "nnl_vbinop(op, vx,",
       "nnl_vbinop(op, nnl_vload(b + i), vx) + 0 * nnl_vbinop(op, vx,",
       ["sub-rows-first", "div-rows-first"], RT)
mutant("reductions by columns sum x whatever the op",
       "common/rt/tensor/tensor.c",
       "nnl_colsum(x + i, n, inner, kind, nnl_vsplat(0), t);",
       "nnl_colsum(x + i, n, inner, NNL_SUM_X, nnl_vsplat(0), t);",
       ["reduceL1-middle", "reduceL2-middle", "reduceSumSquare-middle"], RT)
mutant("layer norm's rows scaled along the groups", "common/rt/nn/nn.c",
       "\t\tp->along = 'n';", "\t\tp->along = 'o';",
       ["layerNormalization-offset", "layerNormalization-channels"], RT)
mutant("where tests == 1", EW, "int c = cond[nnl_off(r, idx, cs)] != 0;",
       "int c = cond[nnl_off(r, idx, cs)] == 1;", ["where"], RT)
mutant("max of uint64 compares signed", EW,
       "int lt = uns ? a < b : x < z;", "int lt = x < z;",
       ["max-uint64"], RT)
mutant("int64 add through double", EW,
       "int exact = !isf && (op <= NNL_LE || op >= NNL_SHL);",
       "int exact = 0 && !isf && (op <= NNL_LE || op >= NNL_SHL);",
       ["add-int64"], RT)
mutant("argMax picks the least", "common/rt/tensor/tensor.c",
       "if (ismax ? v > bv : v < bv) {", "if (ismax ? v < bv : v > bv) {",
       ["argMax", "argMin-keep-int64"], RT)
mutant("gather ignores negative indices", "common/rt/tensor/tensor.c",
       "\tif (v < 0)\n\t\tv += n;\n", "\tif (v < -n)\n\t\tv += n;\n",
       ["gather-axis1", "gather-int64-index"], RT)
mutant("transpose merges axes that are not neighbours",
       "common/rt/tensor/tensor.c",
       "\t\tif (p[i] == p[i - 1] + 1)\n\t\t\tgrp[p[i]] = -1;",
       "\t\tif (p[i] > p[i - 1])\n\t\t\tgrp[p[i]] = -1;",
       ["transpose-2x3x1x4x5x6-520413-float32",
        "transpose-2x3x4x5x6-12043-float32"], RT)
mutant("transpose's vector tiles read at the output's stride",
       "common/rt/tensor/tensor.c",
       "v[i] = nnl_vload(sf + (vc + i) * ls +",
       "v[i] = nnl_vload(sf + (vc + i) * ld +",
       ["transpose-31x47-10-float32", "transpose-1x9x7x33-0312-float32"],
       RT)
mutant("slice runs take in the axis they cut, then step along it too",
       "common/rt/tensor/tensor.c", "w *= odims[q--];", "w *= odims[q];",
       ["slice-lastcut", "slice-midcut"], RT)
mutant("maxPool counts cells past the edge as 0", "common/rt/nn/nn.c",
       "nnl_real acc = kind == 2 ? -INFINITY : 0;", "nnl_real acc = 0;",
       ["maxPool2d-nhwc-ceil"], RT)
mutant("scatter reductions store instead of combining repeats",
       "common/rt/tensor/tensor.c",
       "\t\tif (red == 1)\n\t\t\ta += b;\n",
       "\t\tif (red == 1)\n\t\t\ta = b;\n",
       ["scatterElementsReduce-add-float32", "scatterNDReduce-add-float32"],
       RT)
mutant("scatter reductions' integer max and min swapped",
       "common/rt/tensor/tensor.c",
       "else if (red == 3 ? !lt && a != b : lt)",
       "else if (red == 3 ? lt : !lt && a != b)",
       ["scatterNDReduce-max-int32", "scatterElementsReduce-min-int64"], RT)
mutant("maxPool2dIndices keeps the last of equal ones", "common/rt/nn/nn.c",
       "if (bi < 0 || v > bv) {", "if (bi < 0 || v >= bv) {",
       ["maxPool2dIndices-ties-int8"], RT)
mutant("maxPool2dIndices ignores the storage order", "common/rt/nn/nn.c",
       "return ip[15] ? bw * h + bh : bh * w + bw;",
       "return 0 ? bw * h + bh : bh * w + bw;",
       ["maxPool2dIndices-ceil-colmajor"], RT)
# nnl's 3-D convolutions and pools (common/rt/nn/nd.c)
ND = "common/rt/nn/nd.c"
mutant("conv3d's im2col pads H by its end", ND,
       "int64_t ih = oh * g->s[1] - g->pb[1] + b * g->d[1];",
       "int64_t ih = oh * g->s[1] - g->pe[1] + b * g->d[1];",
       ["conv3d-padded-strided"], RT)
mutant("conv3d reads the first group's filter for every group", ND,
       "const float *wg = w + q * ocg * Kd;", "const float *wg = w;",
       ["conv3d-groups-bias"], RT)
mutant("conv3d's bands start where the last began", ND,
       "yg + p0, P, pack, &e);", "yg, P, pack, &e);", ["conv3d-bands"], RT)
mutant("convTranspose3d pads D by its end", ND,
       "int64_t od = id * g.s[0] - g.pb[0] + a * g.d[0];",
       "int64_t od = id * g.s[0] - g.pe[0] + a * g.d[0];",
       ["convTranspose3d"], RT)
mutant("averagePool3d never counts the padding", ND,
       "\t\t\t\tif (incl)\n", "\t\t\t\tif (incl < 0)\n",
       ["averagePool3d-count-pad-ceil"], RT)
mutant("maxPool3d counts cells past the edge as 0", ND,
       "double acc = kind == 2 ? -INFINITY : 0;", "double acc = 0;",
       ["maxPool3d-ceil-padded"], RT)
mutant("lpPool3d takes the square root for any p", ND,
       "pow(acc, 1 / (double)p);", "sqrt(acc);", ["lpPool3d-p3"], RT)
mutant("3-D pools keep ceil rounding's window past the padding",
       "common/middle/shape_nd.c", "\t\t\tsz[i]--;", "\t\t\tsz[i] -= 0;",
       ["averagePool3d-ceil-drop"], ("all",))
# ---- host kernels (common/host/kern_*.c) ----
mutant("clamp's minValue and maxValue swapped", KEW,
       'opt_f64(c->sc, "minValue", &a) < 0 ||\n'
       '\t\t    opt_f64(c->sc, "maxValue", &b) < 0)',
       'opt_f64(c->sc, "minValue", &b) < 0 ||\n'
       '\t\t    opt_f64(c->sc, "maxValue", &a) < 0)',
       ["clamp", "clamp-int32"], HOST)
mutant("hardSigmoid's alpha and beta swapped", KEW,
       'b = 0.5;\n\t\tif (opt_f64(c->sc, "alpha", &a) < 0 ||\n'
       '\t\t    opt_f64(c->sc, "beta", &b) < 0)',
       'b = 0.5;\n\t\tif (opt_f64(c->sc, "alpha", &b) < 0 ||\n'
       '\t\t    opt_f64(c->sc, "beta", &a) < 0)', ["hardSigmoid"], HOST)
mutant("isNaN and isInfinite codes swapped", KEW,
       "OP_IS_NAN, OP_IS_INFINITE, OP_ASIN,", "OP_IS_INFINITE, OP_IS_NAN, OP_ASIN,",
       ["isNaN", "isInfinite"], HOST)
mutant("logicalAnd and logicalOr codes swapped", KEW,
       "OP_LOGICAL_AND,\n    OP_LOGICAL_OR,",
       "OP_LOGICAL_OR,\n    OP_LOGICAL_AND,",
       ["logicalAnd", "logicalOr"], HOST)
mutant("cumulativeSum's exclusive and reversed swapped", KEW,
       "kip(c, excl);\n\tkip(c, rev);", "kip(c, rev);\n\tkip(c, excl);",
       ["cumulativeSum-exclusive", "cumulativeSum-exclusive-reversed"], HOST)
mutant("triangular's diagonal negated", KEW, "kip(c, diag);",
       "kip(c, -diag);", ["triangular-upper", "triangular-lower"], HOST)
mutant("broadcast strides not zeroed", "common/host/kernel.c",
       "s[i] = d == 1 && dims[i] != 1 ? 0 : st;", "s[i] = st;",
       ["add-broadcast", "greater"], HOST)
mutant("batchNormalization's epsilon left out", "common/host/kern_nn.c",
       "kip(c, cJSON_IsString(b));\n\tkfp(c, eps);\n\tif (kactivation(c))",
       "kip(c, cJSON_IsString(b));\n\tkfp(c, 0);\n\tif (kactivation(c))",
       ["batchNormalization-axis3"], HOST)
mutant("argMin and argMax told apart the wrong way",
       "common/host/kern_tensor.c",
       "kip(c, c->n->op == OP_ARG_MAX);", "kip(c, c->n->op != OP_ARG_MAX);",
       ["argMax", "argMin-keep-int64"], HOST)
# ---- integer products, requantization, n-grams (common/rt/nn/qint.c) ----
QI, KNN = "common/rt/nn/qint.c", "common/host/kern_nn.c"
mutant("conv2dInteger without its left padding", QI,
       "int64_t ix = ox * sw - pl + b * dw;",
       "int64_t ix = ox * sw - pl * 0 + b * dw;",
       ["conv2dInteger-uint8-pad-stride"], RT)
mutant("conv2dInteger's groups all read the first group", QI,
       "xr = xs + ((n * C + o / og * cg + c) * H + iy) * W;",
       "xr = xs + ((n * C + o / og * 0 + c) * H + iy) * W;",
       ["conv2dInteger-int8-groups"],
       RT)
mutant("matMulInteger reads b's first matrix in every batch", QI,
       "const int32_t *b = B + nnl_qint_off(q, idx, bs) * K * N;",
       "const int32_t *b = B;", ["matMulInteger-int8-batch"], RT)
mutant("requantizeLinear rounds half away from zero", QI,
       "v = v != v ? z : nnl_qint_rint(v);", "v = v != v ? z : round(v);",
       ["requantizeLinear-ties-uint8"], RT)
mutant("requantizeLinear wraps instead of saturating", QI,
       "double lo = zdt == NNL_I8 ? -128 : 0, hi = zdt == NNL_I8 ? 127 : 255;",
       "double lo = -1e18, hi = 1e18;", ["requantizeLinear-ties-uint8"], RT)
mutant("tfIdfVectorizer counts a 1-gram at every skip", QI,
       "s <= (n == 1 ? 0 : sk)", "s <= sk", ["tfIdfVectorizer-tf-uni-bi-skip2"],
       RT)
mutant("conv2dInteger's strides swapped", KNN,
       "kip(c, st[0]);\n\tkip(c, st[1]);", "kip(c, st[1]);\n\tkip(c, st[0]);",
       ["conv2dInteger-uint8-pad-stride"], HOST)
# nnl's range and constantOfShape, of a size known at run time
TN = "common/rt/tensor/tensor.c"
mutant("range's integer count floored", TN,
       "ud = ud / ul + (ud % ul != 0);", "ud = ud / ul;",
       ["range-int32-negative", "range-int64-large"], RT)
mutant("range's float count floored", TN, "q = ceil(q);", "q = floor(q);",
       ["range-float-fraction"], RT)
mutant("constantOfShape's value in the padding too", TN,
       "nnl_storef(out[0], i, dt, i < n ? fp[0] : 0);",
       "nnl_storef(out[0], i, dt, fp[0]);", ["constantOfShape-float"], RT)
mutant("melWeightMatrix spaced as a linspace to the upper edge", TN,
       "(mh - ml) * (double)i / (double)(nmel + 2);",
       "(mh - ml) * (double)i / (double)(nmel + 1);",
       ["melWeightMatrix-float16-full", "melWeightMatrix-float64"], RT)
mutant("melWeightMatrix's falling side past its last point", TN,
       "(double)j < b && j < bins; j++)", "(double)j <= b && j < bins; j++)",
       ["melWeightMatrix-float", "melWeightMatrix-float64"], RT)
# ---- shape rules: the output type ----
mutant("isNaN's output keeps the input type", "common/middle/shape_ew.c",
       "shape_out(c, 0, DT_UINT8, c->in[0]->rank, c->in[0]->dims);",
       "shape_out(c, 0, c->in[0]->dt, c->in[0]->rank, c->in[0]->dims);",
       ["isNaN"], ("all",))
mutant("conv2dInteger's output size without the stride",
       "common/middle/shape_num.c", "d[2 + i] = n / st[i] + 1;",
       "d[2 + i] = n + 1;", ["conv2dInteger-uint8-pad-stride"], ("all",))


class Fail(Exception):
    pass


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def make(src, b, bindir, targets, old=()):
    """Builds targets in the copy src (objects in b, programs in bindir);
    old: files make must take as up to date (-o)."""
    cmd = ["make", "-s", "-C", src, "B=" + b, "BIN=" + bindir]
    for o in old:
        cmd += ["-o", o]
    # not the flags of a make that runs this script (make check -j2)
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    r = sh(cmd + [os.path.join(bindir, t) for t in targets], env=env)
    if r.returncode:
        raise Fail("make failed:\n" + (r.stdout + r.stderr)[-2000:])


def view(d, built):
    """A program directory: the built programs, the tree's for the rest."""
    os.makedirs(d)
    for p in PROGS:
        if p not in built:
            os.symlink(os.path.join(BIN, p), os.path.join(d, p))


def runpy(bindir, cases, c):
    env = dict(os.environ, NNL_BIN=bindir)
    r = sh([sys.executable, RUN, "--only", ",".join(cases)] +
           (["--c"] if c else []), env=env)
    return r.returncode, r.stdout + r.stderr


def objcopy(pristine, b, path):
    """The tree's objects in b: linked to the pristine copy, but for
    those a build of a fault in path writes (its object, the library,
    the embedded runtime), which are copied."""
    obj = os.path.join(pristine, path[:-2] + ".o")
    writes = {obj, os.path.join(pristine, "libnnl.a"),
              os.path.join(pristine, "rtsrc.c"),
              os.path.join(pristine, "rtsrc.o")}
    shutil.copytree(pristine, b, copy_function=lambda s, d: (
        shutil.copy2 if s in writes else os.link)(s, d))


def trial(tmp, src, pristine, m, mode, k):
    """Builds mutant m (already in src) for mode; returns (status,
    output) of its cases."""
    b = os.path.join(tmp, "b%d%s" % (k, mode))
    objcopy(pristine, b, m["path"])
    bindir = os.path.join(tmp, "bin%d%s" % (k, mode))
    if mode == "run":
        built, old = ["nnl-run"], ()
    elif mode == "c":
        built = ["nnl-emit-c"]
        old = (os.path.join(b, "libnnl.a"),) if "/rt/" in m["path"] else ()
    else:
        built, old = PROGS, ()
    view(bindir, built)
    make(src, b, bindir, built, old)
    rc, out = runpy(bindir, m["cases"], mode != "run")
    shutil.rmtree(b)
    shutil.rmtree(bindir)
    return rc, out


def main():
    args = sys.argv[1:]
    verbose = "-v" in args
    jobs = 2
    if "-j" in args:
        jobs = int(args[args.index("-j") + 1])
        del args[args.index("-j"):args.index("-j") + 2]
    while "--extra" in args:
        i = args.index("--extra")
        m = json.loads(args[i + 1])
        mutant(m["name"], m["path"], m["old"], m["new"], m["cases"],
               tuple(m["modes"]))
        del args[i:i + 2]
    names = [a for a in args if a != "-v"]
    todo = [m for m in MUTANTS if not names or m["name"] in names]
    if names and len(todo) != len(names):
        print("mutate: no mutant named %s" % sorted(
            set(names) - {m["name"] for m in MUTANTS}))
        return 2
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="nnl-mutate.")
    try:
        return run(todo, tmp, verbose, jobs, t0)
    except Fail as e:
        print("mutate: %s" % e)
        return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(todo, tmp, verbose, jobs, t0):
    src0 = os.path.join(tmp, "src")
    os.makedirs(src0)
    for d in ("common", "passes", "scripts"):
        shutil.copytree(os.path.join(ROOT, d), os.path.join(src0, d))
    shutil.copy2(os.path.join(ROOT, "Makefile"), src0)
    # every mutant applies exactly once
    for m in todo:
        text = open(os.path.join(src0, m["path"])).read()
        n = text.count(m["old"])
        if n != 1:
            raise Fail("mutant %r: its text appears %d times in %s" % (
                m["name"], n, m["path"]))
    # the tree's objects, their times kept (only what a mutant touches
    # is compiled again), brought up to date with the sources
    pristine = os.path.join(tmp, "pristine")
    os.makedirs(pristine)
    for f in ("common", "passes", "libnnl.a", "rtsrc.c", "rtsrc.o"):
        p = os.path.join(B, f)
        if not os.path.exists(p):
            raise Fail("%s missing: run make first" % p)
        (shutil.copytree if os.path.isdir(p) else shutil.copy2)(
            p, os.path.join(pristine, f))
    view(os.path.join(tmp, "bin0"), PROGS)
    make(src0, pristine, os.path.join(tmp, "bin0"), PROGS)
    # the sound copy passes every case the mutants name, in each mode
    allcases = sorted({c for m in todo for c in m["cases"]})
    for mode in ("run", "c"):
        rc, out = trial(tmp, src0, pristine, dict(path="common/x.c",
                                                  cases=allcases), mode, 0)
        if rc:
            raise Fail("the unmutated build fails (%s):\n%s" % (
                mode, "\n".join(l for l in out.splitlines()
                                if not l.startswith("ok"))))
    print("ok - unmutated: %d cases pass (run and c)" % len(allcases))
    sys.stdout.flush()
    # one copy of the sources per worker, its mutated file restored,
    # time and all, after each mutant
    local = threading.local()
    count = iter(range(1, 1 << 30))
    lock = threading.Lock()

    def one(km):
        k, m = km
        if not hasattr(local, "src"):
            with lock:
                local.src = os.path.join(tmp, "src%d" % next(count))
            shutil.copytree(src0, local.src)
        path = os.path.join(local.src, m["path"])
        st = os.stat(path)
        orig = open(path).read()
        open(path, "w").write(orig.replace(m["old"], m["new"]))
        alive, log = [], []
        try:
            for mode in m["modes"]:
                rc, out = trial(tmp, local.src, pristine, m, mode, k)
                log.append("# %s (%s):\n# %s" % (
                    m["name"], mode, out.strip().replace("\n", "\n# ")))
                if rc == 0:
                    alive.append(mode)
        finally:
            open(path, "w").write(orig)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        return alive, log

    killed = survived = 0
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for m, (alive, log) in zip(todo, ex.map(one, enumerate(todo, 1))):
            if verbose:
                print("\n".join(log))
            where = "%s: %s (%s)" % (m["path"], m["name"],
                                     ",".join(m["modes"]))
            if alive:
                survived += 1
                print("not ok - SURVIVED %s: %s passed %s" % (
                    where, ",".join(alive), ",".join(m["cases"])))
            else:
                killed += 1
                print("ok - killed %s" % where)
            sys.stdout.flush()
    print("# %.0f s, %d at once" % (time.time() - t0, jobs))
    print("mutants: %d killed, %d survived" % (killed, survived))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""flops: the arithmetic of a model's products, read from nnc's C.

Counts, for the C that `nnc compile --emit c` wrote, the floating-point
operations of its convolutions (nnl_k_conv2d_f32) and matrix products
(nnl_k_gemm_f32, nnl_k_matmul_f32), the nodes bench/models.py counts
(PyTorch's Conv2d and Linear), from the integer parameters each call
passes (the arrays NAME_iK of the generated code).  Two figures:

effective: 2 flops a multiply-add of direct convolution and of the
    products, N O OH OW (C / groups) kh kw a convolution, M N K (times
    the batch) a product: the work a model stands for, whatever
    algorithm runs it.  This is what GFLOP/s figures usually divide.

executed: what the kernels compute.  The same as effective, except
    for a convolution whose filter layout parameter is 4 (ip[19]): the
    runtime runs those, and only those, by Winograd's F(2x2, 3x3)
    (common/rt/nn/nn.c, common/rt/f32-winograd/wino.c; nnl-fuse chooses them, the
    planned graph marks them "winograd": "2x2").  For T = N
    ceil(OH / 2) ceil(OW / 2) output tiles, C input and O output
    channels, such a convolution executes
        2 * 16 T C O   the 16 products a tile (U^T V, multiply-adds)
      + 32 T C         the input transform B^T d B (32 additions a tile
                       and input channel, NNL_WINO_IN)
      + 24 T O         the output transform A^T m A (24 additions a
                       tile and output channel, NNL_WINO_OUT; its bias
                       addition is left out, as direct counts leave it)
    flops; the filter transform is done at compile time and costs
    nothing here.  Tiles past the output's edge (an odd OH or OW) count
    whole, as they are computed; vector lanes or padded panels that a
    kernel computes past its operands do not.

Neither figure counts biases, activations, residual additions,
pooling or any other node.

Usage: flops.py FILE.c   prints "effective N", "executed N", "winograd
       L of M convolutions" (flops, one a line)
"""
import math
import re
import sys

CALL = re.compile(r"\bnnl_k_(\w+)\((\w+), ")
ARRAY = re.compile(r"static const int64_t (\w+)\[\] = \{([^}]*)\}")
WINOGRAD = 4  # conv2d's filter layout: Winograd's F(2x2, 3x3)


def calls(src):
    """(kernel, integer parameters) of every kernel call whose first
    argument is one of the generated parameter arrays, in order."""
    arrays = {m.group(1): [int(x) for x in re.findall(r"-?\d+",
                                                      m.group(2))]
              for m in ARRAY.finditer(src)}
    out = []
    for m in CALL.finditer(src):
        if m.group(2) in arrays:
            out.append((m.group(1), arrays[m.group(2)]))
    return out


def conv2d(p):
    """(effective, executed, winograd?) flops of one conv2d call."""
    n, c, _, _, o, oh, ow, kh, kw, sh, sw, dh, dw = p[1:14]
    g, fl = p[18], p[19]
    direct = 2 * n * o * oh * ow * (c // g) * kh * kw
    if fl != WINOGRAD:
        return direct, direct, False
    if (kh, kw, sh, sw, dh, dw, g) != (3, 3, 1, 1, 1, 1, 1):
        raise ValueError("a Winograd conv2d that is not 3x3 at stride 1 "
                         "in one group: %r" % (p,))
    t = n * math.ceil(oh / 2) * math.ceil(ow / 2)
    return direct, 2 * 16 * t * c * o + 32 * t * c + 24 * t * o, True


def count(src):
    """{effective, executed, winograd, convs} of the C source src."""
    eff = exe = wino = convs = 0
    for kernel, p in calls(src):
        if kernel == "conv2d_f32":
            e, x, w = conv2d(p)
            convs += 1
            wino += w
        elif kernel == "gemm_f32":
            e = x = 2 * p[0] * p[1] * p[2]
        elif kernel == "matmul_f32":
            r = p[3]
            e = x = 2 * p[0] * p[1] * p[2] * math.prod(p[4:4 + r])
        else:
            continue
        eff += e
        exe += x
    return {"effective": eff, "executed": exe, "winograd": wino,
            "convs": convs}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: flops.py FILE.c")
    with open(sys.argv[1]) as f:
        r = count(f.read())
    print("effective %d" % r["effective"])
    print("executed %d" % r["executed"])
    print("winograd %d of %d convolutions" % (r["winograd"], r["convs"]))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""import_property: nnc import to .nnl checked against PyTorch on random
compositions of the NNL 0.9 layers.

Usage: import_property.py BIN DIR [COUNT [SEED [CTEST]]]

Builds COUNT (200) small PyTorch models from SEED (29), each a random
chain of Conv2d/Conv1d, MaxPool2d/MaxPool1d, AvgPool2d, BatchNorm,
activations, Dropout, Upsample, residual Add and Mul, channel Concat,
then Flatten or a global average pool, then the feature layers
(activations, BatchNorm1d, LayerNorm, Softmax, Dropout, Linear, Add,
Mul and Concat of branches) and a closing Linear.  Each is exported
with torch.onnx.export (opset 17, so LayerNorm is one
LayerNormalization), imported with `nnc import -o model.nnl`, parsed
with nnl-parse and run with nnl-run, the reference interpreter; every
CTEST-th (40th) compared model also goes through `nnc test`, the C
back end.  The outputs must match PyTorch's within 1e-4 + 1e-4 |y|.

A few compositions are ones nnc(1) documents as refused (a LayerNorm
over the length of a Conv1d's output, a Softmax over W or L, an Add of a
Flatten's features and a Linear's, a Flatten's features as the output):
those, and only those, must be refused, naming the reason.  Prints one
line per failure and a last line "compared N (C also through nnc test),
refused M, failed F"; exits 1 on a failure or when fewer than 90% were
compared.
"""
import json
import os
import random
import subprocess
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn

warnings.filterwarnings("ignore")
torch.set_num_threads(1)

# reasons nnc import gives for the documented refusals
LN_SPATIAL = "LayerNormalization not over the features of a [1, K] layer"
SOFTMAX_W = "not over the channels"
MIXED = "its inputs list their features in different orders"
OUTPUT = "a Flatten's features, in HWC order where ONNX has CHW"


class Res(nn.Module):
    """x + f(x) or x * f(x)."""

    def __init__(self, f, mul):
        super().__init__()
        self.f, self.mul = f, mul

    def forward(self, x):
        return x * self.f(x) if self.mul else x + self.f(x)


class Cat(nn.Module):
    """f(x) and g(x) along the channels (features)."""

    def __init__(self, f, g):
        super().__init__()
        self.f, self.g = f, g

    def forward(self, x):
        return torch.cat([self.f(x), self.g(x)], 1)


class Mean(nn.Module):
    """x.mean((2, 3)): ONNX ReduceMean over H and W."""

    def forward(self, x):
        return x.mean((2, 3))


class Gen:
    """One random model: its layers, shape and what nnc should say."""

    def __init__(self, r):
        self.r = r
        self.mods = []
        self.refuse = None      # the reason nnc import must give

    def act(self):
        k = self.r.randrange(6)
        return [nn.ReLU(), nn.ReLU6(), nn.LeakyReLU(self.r.choice(
            [0.01, 0.2])), nn.Sigmoid(), nn.Hardswish(),
            nn.Dropout(0.5)][k]

    def conv2d(self, C, H, W):
        r = self.r
        O = r.randint(1, 5)
        k = r.choice([k for k in (1, 2, 3) if k <= min(H, W)])
        s = r.choice([1, 1, 2])
        p = k // 2 if k % 2 and r.random() < 0.5 else 0
        g = C if O == C and C > 1 and r.random() < 0.3 else 1
        m = nn.Conv2d(C, O, k, s, p, groups=g, bias=r.random() < 0.8)
        return m, (O, (H + 2 * p - k) // s + 1, (W + 2 * p - k) // s + 1)

    def spatial2d(self, C, H, W):
        """One 2-D layer (or block) on [C, H, W]; its new shape."""
        r = self.r
        k = r.randrange(10)
        if k <= 2:
            m, sh = self.conv2d(C, H, W)
        elif k == 3 and H >= 2 and W >= 2:
            m, sh = nn.MaxPool2d(2), (C, H // 2, W // 2)
        elif k == 3:
            m, sh = nn.MaxPool2d(3, 1, 1), (C, H, W)
        elif k == 4 and H >= 2 and W >= 2:
            m, sh = nn.AvgPool2d(2), (C, H // 2, W // 2)
        elif k == 5:
            m, sh = nn.BatchNorm2d(C), (C, H, W)
        elif k == 6 and H * W <= 36:
            m, sh = nn.Upsample(scale_factor=2), (C, 2 * H, 2 * W)
        elif k == 7:
            f = nn.Sequential(nn.Conv2d(C, C, 3, 1, 1), self.act())
            m, sh = Res(f, r.random() < 0.3), (C, H, W)
        elif k == 8:
            O = r.randint(1, 3)
            m, sh = Cat(nn.Conv2d(C, O, 1), self.act()), (C + O, H, W)
        elif k == 9 and r.random() < 0.3:
            m, sh = nn.Softmax(1), (C, H, W)
        else:
            m, sh = self.act(), (C, H, W)
        self.mods.append(m)
        return sh

    def spatial1d(self, C, L):
        r = self.r
        k = r.randrange(7)
        if k <= 1:
            O = r.randint(1, 5)
            kk = r.choice([x for x in (1, 3, 5) if x <= L])
            s = r.choice([1, 2])
            p = kk // 2 if s == 1 and r.random() < 0.5 else 0
            m = nn.Conv1d(C, O, kk, s, p)
            sh = (O, (L + 2 * p - kk) // s + 1)
        elif k == 2 and L >= 2:
            m, sh = nn.MaxPool1d(2), (C, L // 2)
        elif k == 2:
            m, sh = nn.MaxPool1d(1), (C, L)
        elif k == 3:
            m, sh = nn.BatchNorm1d(C), (C, L)
        elif k == 4:
            f = nn.Sequential(nn.Conv1d(C, C, 3, 1, 1), self.act())
            m, sh = Res(f, r.random() < 0.3), (C, L)
        elif k == 5:
            O = r.randint(1, 3)
            m, sh = Cat(nn.Conv1d(C, O, 1), nn.Softmax(1)), (C + O, L)
        else:
            m, sh = self.act(), (C, L)
        self.mods.append(m)
        return sh

    def features(self, K, permuted):
        """One layer on [K] features; the new K and whether they are
        still in an order NNL holds otherwise than ONNX."""
        r = self.r
        k = r.randrange(10)
        if k == 0:
            m = nn.LayerNorm(K)
        elif k == 1:
            m = nn.BatchNorm1d(K)
        elif k == 2:
            m = nn.Softmax(1)
        elif k == 3:
            U = r.randint(2, 12)
            self.mods.append(nn.Linear(K, U))
            return U, False
        elif k == 4:
            m = Res(self.act(), r.random() < 0.4)
        elif k == 5:
            m = Cat(self.act(), nn.Sequential(nn.LayerNorm(K)))
            self.mods.append(m)
            return 2 * K, permuted
        else:
            m = self.act()
        self.mods.append(m)
        return K, permuted

    def build(self):
        r = self.r
        kind = r.choice(["2d"] * 6 + ["1d"] * 3 + ["mlp"])
        bad = r.random() < 0.08         # one documented refusal
        if kind == "2d":
            C, H, W = r.randint(1, 4), r.randint(3, 8), r.randint(3, 8)
            shape = (1, C, H, W)
            for _ in range(r.randint(1, 4)):
                C, H, W = self.spatial2d(C, H, W)
            if bad and r.random() < 0.3:
                self.mods.append(nn.Softmax(-1))
                self.refuse = SOFTMAX_W
            g = r.random()
            if g < 0.15:
                self.mods += [nn.AdaptiveAvgPool2d(1), nn.Flatten()]
                K, perm = C, False
            elif g < 0.25:
                self.mods.append(Mean())
                K, perm = C, False
            else:
                self.mods.append(nn.Flatten())
                K, perm = C * H * W, C > 1 and H * W > 1
        elif kind == "1d":
            C, L = r.randint(1, 4), r.randint(4, 12)
            shape = (1, C, L)
            for _ in range(r.randint(1, 3)):
                C, L = self.spatial1d(C, L)
            if bad and r.random() < 0.3:
                self.mods.append(nn.LayerNorm(L))
                self.refuse = LN_SPATIAL
            elif bad and r.random() < 0.3:
                self.mods.append(nn.Softmax(-1))
                self.refuse = SOFTMAX_W
            self.mods.append(nn.Flatten())
            K, perm = C * L, C > 1 and L > 1
        else:
            K = r.randint(2, 16)
            shape, perm = (1, K), False
        for _ in range(r.randint(0, 3)):
            K, perm = self.features(K, perm)
        if bad and not self.refuse and perm and r.random() < 0.5:
            # the model's output in NNL's order, not ONNX's
            self.refuse = OUTPUT
            return nn.Sequential(*self.mods).eval(), shape
        if bad and not self.refuse and perm:
            # x + Linear(x): one in NNL's order, one in ONNX's
            self.mods.append(Res(nn.Linear(K, K), False))
            self.refuse = MIXED
        self.mods.append(nn.Linear(K, r.randint(1, 6)))
        return nn.Sequential(*self.mods).eval(), shape


def randomize(model, g):
    """Statistics and affine parameters away from their defaults."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.running_mean.uniform_(-1, 1, generator=g)
            m.running_var.uniform_(0.5, 2, generator=g)
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d, nn.LayerNorm)):
            if m.weight is not None:
                m.weight.data.uniform_(0.5, 2, generator=g)
                m.bias.data.uniform_(-1, 1, generator=g)


def nnl_layout(a):
    """A batch-1 NCHW/NCL/NK array as NNL holds it: HWC, LC, K."""
    a = a[0]
    if a.ndim == 3:
        return a.transpose(1, 2, 0)
    if a.ndim == 2:
        return a.transpose(1, 0)
    return a


def make(d, count, seed):
    """The models, inputs and PyTorch's outputs; their list."""
    r = random.Random(seed)
    g = torch.Generator().manual_seed(seed)
    cases = []
    for i in range(count):
        torch.manual_seed(r.randrange(1 << 30))
        gen = Gen(r)
        model, shape = gen.build()
        randomize(model, g)
        x = torch.randn(*shape, generator=g)
        with torch.no_grad():
            y = model(x).numpy()
        c = os.path.join(d, "m%03d" % i)
        os.makedirs(c)
        torch.onnx.export(model, x, os.path.join(c, "model.onnx"),
                          opset_version=17)
        np.save(os.path.join(c, "in.npy"),
                np.ascontiguousarray(nnl_layout(x.numpy())))
        np.save(os.path.join(c, "want.npy"),
                np.ascontiguousarray(nnl_layout(y)))
        cases.append({"dir": c, "refuse": gen.refuse,
                      "layers": " ".join(type(m).__name__
                                         for m in gen.mods)})
    return cases


def sh(args, cwd):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True)


def check(bin_, case, ctest):
    """None when nnc import did what it should; else what went wrong.
    Sets case["compared"]."""
    c = case["dir"]
    case["compared"] = False
    p = sh([bin_ + "/nnc", "import", "-o", "model.nnl", "--weights-dir",
            "w", "model.onnx"], c)
    if p.returncode in (86, 87) or p.returncode < 0:
        return "nnc import: sanitizer finding or signal (%d): %s" % (
            p.returncode, p.stderr.strip())
    if case["refuse"]:
        if p.returncode != 1:
            return "imported (status %d) what must be refused: %s" % (
                p.returncode, case["refuse"])
        if case["refuse"] not in p.stderr:
            return "refused without naming the reason %r: %s" % (
                case["refuse"], p.stderr.strip())
        if os.path.exists(os.path.join(c, "model.nnl")):
            return "a refused import left model.nnl"
        return None
    if p.returncode != 0:
        return "refused (status %d): %s" % (p.returncode,
                                             p.stderr.strip())
    p = sh([bin_ + "/nnl-parse", "-w", "m.weights", "-m",
            "m.manifest.json", "-o", "m.json", "model.nnl"], c)
    if p.returncode != 0:
        return "nnl-parse: " + p.stderr.strip()
    with open(os.path.join(c, "m.json")) as f:
        inputs = json.load(f)["inputs"]
    os.makedirs(os.path.join(c, "out"))
    p = sh([bin_ + "/nnl-run", "-d", "out", "m.json",
            "%s=in.npy" % next(iter(inputs))], c)
    if p.returncode != 0:
        return "nnl-run: " + p.stderr.strip()
    got = np.load(os.path.join(c, p.stdout.split()[-1]))
    want = np.load(os.path.join(c, "want.npy"))
    if got.size != want.size:
        return "nnl-run: %d values, PyTorch %d" % (got.size, want.size)
    got = got.reshape(want.shape)
    bad = np.abs(got - want) > 1e-4 + 1e-4 * np.abs(want)
    if bad.any():
        return "nnl-run: %d of %d values off, max difference %g" % (
            bad.sum(), want.size, np.abs(got - want).max())
    if ctest:
        p = sh([bin_ + "/nnc", "test", "--tolerance", "1e-4", "--input",
                "in.npy", "--expected", "want.npy", "model.nnl"], c)
        if p.returncode != 0 or not p.stdout.startswith("PASS"):
            return "nnc test: " + (p.stdout + p.stderr).strip()
    case["compared"] = True
    return None


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: import_property.py BIN DIR [COUNT [SEED [CTEST]]]")
    bin_, d = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 29
    every = int(sys.argv[5]) if len(sys.argv) > 5 else 40
    cases = make(d, count, seed)
    failed = compared = refused = ctested = 0
    for case in cases:
        ctest = compared % every == every - 1
        why = check(bin_, case, ctest)
        ctested += ctest and case["compared"]
        if why:
            failed += 1
            print("FAIL %s (%s): %s" % (os.path.basename(case["dir"]),
                                        case["layers"], why))
        elif case["compared"]:
            compared += 1
        else:
            refused += 1
    print("compared %d (%d also through nnc test), refused %d, failed %d"
          % (compared, ctested, refused, failed))
    sys.exit(1 if failed or compared < 0.9 * count else 0)


if __name__ == "__main__":
    main()

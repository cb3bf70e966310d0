"""fuzzgen: the inputs scripts/fuzz.py feeds to nnl: webnn-graph JSON,
.webnn and .nnl text, .npy and .npz files, weights files with their
manifests, and ONNX models, each made from the test corpus by seeded
mutation.  Mutations favour what breaks size arithmetic and parsers:
boundary numbers (2^31+-1, 2^32+-1, 2^62, 2^63-1, -1, 0) in shapes,
options, offsets and lengths, and inputs turned into constants of
chosen shapes and values.  Every function takes the random.Random it
draws from, so one seed makes one input.
"""
import glob
import io
import json
import os
import re
import struct
import warnings
import zipfile

warnings.filterwarnings("ignore", "Duplicate name")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOUND = [0, 1, -1, 2, 2**31 - 1, 2**31, 2**31 + 1, 2**32 - 1, 2**32,
         2**32 + 1, 2**62, 2**63 - 1, -2**31, -2**63, 2**64 - 1, 2**64]
SMALL = [0, 1, 1, 2, 2, 3, 4, 5, 7, 8]
# Shapes whose element count or byte size wraps 64 bits, or nearly.
BIGSHAPES = [[2**31], [2**32 + 1], [16, 536903681, 536838145],
             [2**62, 4], [2**31, 2**31, 4], [65536, 65536, 65536, 65536],
             [4294967295, 4294967295], [2**33], [0, 2**62]]
VALUES = [0, 1, -1, 0.5, -0.0, 1e30, -1e30, 3.4e38, 65504, 2**31 - 1,
          -2**31, 2**31, 2**53, 2**63 - 1, -2**63, 255, 256, 1e-45]
DTYPES = ["float32", "float16", "int32", "uint32", "int64", "uint64",
          "int8", "uint8", "int4", "uint4"]
SIZE = {"float32": 4, "float16": 2, "int32": 4, "uint32": 4, "int64": 8,
        "uint64": 8, "int8": 1, "uint8": 1, "int4": 0.5, "uint4": 0.5}
HOSTILE = ["", "../x", "a/b", "/etc/passwd", "x\ny", "*/", "\u0000",
           "__proto__", "a" * 300, "\u2028", "\ud800x", "con"]


def bound(r):
    return r.choice(BOUND)


def small_shape(r, rank=None):
    rank = r.randrange(0, 4) if rank is None else rank
    return [r.randrange(1, 5) for _ in range(rank)]


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def nbytes(dtype, shape):
    return int((numel(shape) * SIZE[dtype] * 2 + 1) // 2)


# --- webnn-graph JSON -------------------------------------------------------

def graph_corpus():
    return sorted(glob.glob(ROOT + "/tests/golden/shape-infer/*.in.json") +
                  glob.glob(ROOT + "/tests/golden/fuse/*.in.json") +
                  glob.glob(ROOT + "/tests/golden/parse/*.in.json"))


def load_graph(r, files):
    with open(r.choice(files)) as f:
        return json.load(f)


def init_for(r, dtype, shape):
    """An init of kind scalar or inlineBytes for a constant."""
    n = nbytes(dtype, shape) if all(isinstance(d, int) and d >= 0
                                    for d in shape) else -1
    if 0 <= n <= 4096 and r.random() < 0.6:
        k = n if r.random() < 0.9 else max(0, n + r.choice([-1, 1, 7]))
        return {"kind": "inlineBytes",
                "bytes": [r.randrange(256) for _ in range(k)]}
    if dtype.startswith("float"):
        v = r.choice(VALUES + [r.uniform(-4, 4)])
    else:
        v = r.choice([0, 1, -1, 2, 3, 100, 127, -128, 255, 2**31 - 1,
                      -2**31, 2**32 - 1, 2**63 - 1, -2**63])
    return {"kind": "scalar", "value": v}


def constify(r, g, big=0.2):
    """Turn one graph input into a constant with chosen shape and values."""
    ins = g.get("inputs")
    if not isinstance(ins, dict) or not ins:
        return
    name = r.choice(list(ins))
    t = ins.pop(name)
    if not isinstance(t, dict):
        return
    dtype = t.get("dataType", "float32")
    if dtype not in SIZE:
        dtype = "float32"
    shape = t.get("shape", [])
    if r.random() < big:
        shape = list(r.choice(BIGSHAPES))
    elif r.random() < 0.2:
        shape = [bound(r) if r.random() < 0.3 else d for d in shape]
    g.setdefault("consts", {})
    if not isinstance(g["consts"], dict):
        g["consts"] = {}
    g["consts"][name] = {"dataType": dtype, "shape": shape,
                         "init": init_for(r, dtype, shape)}
    if not ins:     # a graph needs no input, but keep one sometimes
        if r.random() < 0.5:
            ins["unused"] = {"dataType": "float32", "shape": [1]}


def mutate_numbers(r, v, p):
    if isinstance(v, bool):
        return (not v) if r.random() < p else v
    if isinstance(v, int):
        if r.random() < p:
            return bound(r) if r.random() < 0.7 else r.choice(SMALL)
        return v
    if isinstance(v, float):
        return r.choice(VALUES) if r.random() < p else v
    if isinstance(v, list):
        v = [mutate_numbers(r, x, p) for x in v]
        if v and r.random() < p:
            v.pop(r.randrange(len(v)))
        elif r.random() < p / 2:
            v.insert(r.randrange(len(v) + 1), bound(r))
        return v
    if isinstance(v, dict):
        return {k: mutate_numbers(r, x, p) for k, x in v.items()}
    return v


def mutate_structure(r, g):
    nodes = g.get("nodes")
    if not isinstance(nodes, list) or not nodes:
        return
    names = list(g.get("inputs") or {}) + list(g.get("consts") or {}) + \
        [n.get("id") for n in nodes if isinstance(n, dict)]
    n = r.choice(nodes)
    if not isinstance(n, dict):
        return
    k = r.random()
    if k < 0.3 and n.get("inputs"):
        n["inputs"][r.randrange(len(n["inputs"]))] = r.choice(names)
    elif k < 0.5:
        ops = [m.get("op") for m in nodes if isinstance(m, dict)]
        n["op"] = r.choice(ops + ["reshape", "expand", "tile", "pad",
                                  "slice", "gather", "concat", "split"])
    elif k < 0.65:
        opts = n.setdefault("options", {})
        if isinstance(opts, dict):
            key = r.choice(["axis", "axes", "newShape", "pads", "strides",
                            "dilations", "padding", "repetitions", "starts",
                            "sizes", "splits", "permutation", "groups",
                            "windowDimensions", "outputSizes", "scales"])
            opts[key] = r.choice([bound(r), [bound(r)], [1, bound(r)],
                                  small_shape(r, 2), [bound(r)] * 4])
    elif k < 0.75:
        n["id"] = r.choice(HOSTILE + names)
    elif k < 0.85:
        nodes.append(json.loads(json.dumps(n)))
    else:
        nodes.remove(n)


def mutate_graph(r, g, gentle=False):
    """A mutated copy of graph g; gentle keeps it likely to pass
    shape inference (small constants, no structural damage)."""
    g = json.loads(json.dumps(g))
    if gentle:
        if r.random() < 0.7:
            constify(r, g, big=0.03)
        if r.random() < 0.3:
            constify(r, g, big=0.03)
        return g
    for _ in range(r.randrange(1, 4)):
        k = r.random()
        if k < 0.35:
            constify(r, g)
        elif k < 0.6:
            g = mutate_numbers(r, g, 0.05)
        elif k < 0.85:
            mutate_structure(r, g)
        else:
            ins = g.get("inputs")
            if isinstance(ins, dict) and ins:
                t = ins[r.choice(list(ins))]
                if isinstance(t, dict):
                    t["shape"] = r.choice([list(r.choice(BIGSHAPES)),
                                           [bound(r)], small_shape(r)])
                    if r.random() < 0.3:
                        t["dataType"] = r.choice(DTYPES)
    return g


def input_files(r, g, write, bad=0.1):
    """Random .npy files for g's inputs, written by write(name, bytes):
    the arguments NAME=FILE that name them."""
    out = []
    ins = g.get("inputs") if isinstance(g, dict) else None
    for i, (name, t) in enumerate((ins or {}).items()):
        if not isinstance(t, dict):
            continue
        dt = t.get("dataType")
        shape = t.get("shape")
        if dt not in NPYDESCR or not isinstance(shape, list) or \
                not all(isinstance(x, int) and 0 <= x for x in shape) or \
                nbytes(dt, shape) > 1 << 22:
            continue
        if r.random() < bad:
            shape = small_shape(r)
        body = bytes(r.randrange(256) for _ in range(nbytes(dt, shape)))
        if dt.startswith("float") and r.random() < 0.7:
            body = floats(r, dt, numel(shape))
        p = write("in%d.npy" % i, npy_bytes(NPYDESCR[dt], shape, body))
        out.append("%s=%s" % (name, p))
    return out


def floats(r, dt, n):
    fmt = "<%d%s" % (n, "f" if dt == "float32" else "e")
    vals = [r.uniform(-3, 3) if r.random() < 0.95 else
            r.choice([0.0, -0.0, 65504.0, -65504.0, float("inf"),
                      float("nan")]) for _ in range(n)]
    return struct.pack(fmt, *vals)


def input_blob(r, g, bad=0.1):
    """Bytes for a generated program's standard input: its inputs in
    order, or (sometimes: bad) too few or too many bytes."""
    total = 0
    for t in (g.get("inputs") or {}).values():
        total += nbytes(t["dataType"], t["shape"])
    if total > 1 << 24:
        total = 1 << 16
    if r.random() < bad:
        total = max(0, total + r.choice([-1, -4, 1, 100]))
    return bytes(r.randrange(256) for _ in range(total))


# --- .webnn and .nnl text ---------------------------------------------------

NUM = re.compile(rb"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
PUNCT = b"{}[]();,=@:\"\\\n#/*<>.-"


def mutate_text(r, s, rounds=None):
    """Token- and line-level mutations of a text model."""
    for _ in range(rounds or r.randrange(1, 4)):
        k = r.random()
        if k < 0.4:
            ms = list(NUM.finditer(s))
            if ms:
                m = r.choice(ms)
                v = r.choice([bound(r), r.choice(SMALL),
                              r.choice(VALUES)]) if r.random() < 0.9 else \
                    r.choice(["1e999", "-0", "0x10", "1.", ".5", "nan",
                              "99999999999999999999999"])
                s = s[:m.start()] + str(v).encode() + s[m.end():]
        elif k < 0.6:
            lines = s.split(b"\n")
            i = r.randrange(len(lines))
            j = r.randrange(len(lines))
            op = r.random()
            if op < 0.35:
                lines.insert(j, lines[i])
            elif op < 0.7:
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
            s = b"\n".join(lines)
        elif k < 0.8 and s:
            i = r.randrange(len(s))
            s = s[:i] + bytes([r.choice(PUNCT)]) + s[i + r.randrange(2):]
        elif k < 0.9 and s:
            i = r.randrange(len(s))
            s = s[:i] + bytes([r.randrange(256)]) + s[i + 1:]
        else:
            i = r.randrange(len(s) + 1)
            s = s[:i] + r.choice([b"[2147483648]", b"[4294967297]",
                                  b"[16, 536903681, 536838145]",
                                  b"@scalar(1e30)", b"@bytes([1,2,3])",
                                  b"\"" + b"\\" * 3, b"\x00", b"\xff\xfe",
                                  b"units: 4294967297", b"[0]",
                                  b"shape: [9223372036854775807]"]) + s[i:]
    return s


def webnn_corpus():
    return sorted(glob.glob(ROOT + "/tests/golden/parse/*.in.webnn") +
                  glob.glob(ROOT + "/tests/data/malformed/*.webnn"))


def nnl_corpus():
    """(model.nnl, weights directory or None) pairs."""
    out = []
    for p in sorted(glob.glob(ROOT + "/tests/golden/parse/nnl-*.in.nnl")):
        m = re.search(r'weights:\s*"([^"]*)"', open(p).read())
        w = os.path.join(os.path.dirname(p), m.group(1)) if m else None
        out.append((p, w if w and os.path.isdir(w) else None))
    for p in sorted(glob.glob(ROOT + "/examples/*/*.nnl")):
        w = os.path.join(os.path.dirname(p), "weights")
        if os.path.isdir(w) and \
                sum(os.path.getsize(os.path.join(w, f))
                    for f in os.listdir(w)) < 1 << 20:
            out.append((p, w))
    return out


# --- .npy, .npz -------------------------------------------------------------

NPYDESCR = {"float32": "<f4", "float16": "<f2", "int32": "<i4",
            "uint32": "<u4", "int64": "<i8", "uint64": "<u8", "int8": "|i1",
            "uint8": "|u1"}
DESCRS = list(NPYDESCR.values()) + ["<f8", ">f4", "|b1", "<c8", "O", "<U3",
                                    "|V4", "<i2", "f4", "", "<f4'", "<i16"]


def npy_bytes(descr, shape, body, fortran=False, version=1, hdr=None):
    if hdr is None:
        sh = "(" + "".join("%d," % d for d in shape) + ")" if \
            len(shape) == 1 else "(" + ", ".join(str(d) for d in shape) + ")"
        hdr = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
            descr, "True" if fortran else "False", sh)
    hdr = hdr.encode("latin-1")
    lenfmt = "<H" if version == 1 else "<I"
    pre = 10 if version == 1 else 12
    pad = (64 - (pre + len(hdr) + 1) % 64) % 64
    hdr = hdr + b" " * pad + b"\n"
    return b"\x93NUMPY" + bytes([version, 0]) + \
        struct.pack(lenfmt, len(hdr) & (0xffff if version == 1 else
                                        0xffffffff)) + hdr + body


def hostile_npy(r):
    """A .npy file: half of them sound, the rest with hostile shapes,
    types, lengths or headers."""
    dt = r.choice(list(NPYDESCR))
    shape = small_shape(r)
    if r.random() < 0.5:
        return npy_bytes(NPYDESCR[dt], shape, bytes(
            r.randrange(256) for _ in range(nbytes(dt, shape))))
    k = r.random()
    if k < 0.25:
        shape = list(r.choice(BIGSHAPES))
    elif k < 0.4:
        shape = [bound(r) if r.random() < 0.5 else d for d in shape] or \
            [bound(r)]
    n = nbytes(dt, shape) if all(d >= 0 for d in shape) else 16
    n = min(n, 1 << 16)
    if r.random() < 0.2:
        n = max(0, n + r.choice([-1, 1, -8, 1000]))
    body = bytes(r.randrange(256) for _ in range(n))
    descr = NPYDESCR[dt] if r.random() < 0.8 else r.choice(DESCRS)
    hdr = None
    if r.random() < 0.1:
        hdr = r.choice(["{}", "{'descr': '<f4'}", "{'shape': (2,)}",
                        "{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (-1,), }", "x" * 70000,
                        "{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, "
                        "13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, "
                        "25, 26, 27, 28, 29, 30, 31, 32, 33), }"])
    b = npy_bytes(descr, shape, body, fortran=r.random() < 0.1,
                  version=r.choice([1, 1, 1, 2, 3]), hdr=hdr)
    if r.random() < 0.1:
        b = b[:r.randrange(len(b) + 1)]
    if r.random() < 0.1:
        b = bytearray(b)
        b[r.randrange(min(len(b), 12) or 1)] = r.randrange(256)
        b = bytes(b)
    return b


def hostile_npz(r):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for i in range(r.randrange(0, 4)):
            name = r.choice(["w%d.npy" % i, "w%d.npy" % i, "w%d" % i,
                             "../up.npy", "a/b.npy", ".npy", "w0.npy",
                             "x\ny.npy", "\u00e9.npy"])
            comp = r.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
            data = hostile_npy(r)
            if r.random() < 0.05:     # a small bomb: 64 MiB of zeros
                data = npy_bytes("<f4", [1 << 24], b"\0" * (1 << 26))
                comp = zipfile.ZIP_DEFLATED
            try:
                z.writestr(zipfile.ZipInfo(name), data, compress_type=comp)
            except ValueError:
                pass
    b = bytearray(buf.getvalue())
    for _ in range(r.choice([0, 0, 0, 1, 2])):
        if b:
            b[r.randrange(len(b))] = r.randrange(256)
    return bytes(b)


# --- weights files and manifests --------------------------------------------

def weights_pack(r, tensors, align=64):
    """A sound weights file and manifest for {name: (dtype, shape)}."""
    body = bytearray(b"WGWT" + struct.pack("<I", 1))
    man = {"format": "wg-weights-manifest", "version": 1,
           "endianness": "little", "tensors": {}}
    for name, (dt, shape) in tensors.items():
        while len(body) % align:
            body.append(0)
        n = nbytes(dt, shape)
        man["tensors"][name] = {"dataType": dt, "shape": shape,
                                "byteOffset": len(body), "byteLength": n,
                                "layout": "row-major"}
        body += bytes(r.randrange(256) for _ in range(n))
    return bytes(body), man


def mutate_manifest(r, man, wlen):
    man = json.loads(json.dumps(man))
    ts = man.get("tensors") or {}
    for _ in range(r.randrange(1, 3)):
        k = r.random()
        if not ts or k < 0.1:
            key = r.choice(["format", "version", "endianness", "tensors"])
            man[key] = r.choice(["big", 2, None, [], {}, "", bound(r)])
            continue
        name = r.choice(list(ts))
        t = ts[name]
        if k < 0.45:
            f = r.choice(["byteOffset", "byteLength"])
            t[f] = r.choice([bound(r), wlen, wlen - 1, wlen + 1, 8, 7,
                             2**53, 2**53 + 1, -0.5, 1.5, "8"])
        elif k < 0.6:
            t["dataType"] = r.choice(DTYPES + ["float64", "", 3])
        elif k < 0.75:
            t["shape"] = r.choice([list(r.choice(BIGSHAPES)), [bound(r)],
                                   [], [-1], small_shape(r)])
        elif k < 0.85:
            ts[r.choice(HOSTILE)] = ts.pop(name)
        elif k < 0.92:
            t["checksum"] = r.choice(["xxh3-64:0000000000000000",
                                      "xxh3-64:", "md5:00", 7])
        else:
            t["layout"] = r.choice(["column-major", "", None])
    return man


def mutate_weights(r, w):
    w = bytearray(w)
    k = r.random()
    if k < 0.3 and w:
        w = w[:r.randrange(len(w))]
    elif k < 0.5:
        w[r.randrange(8)] = r.randrange(256)
    elif k < 0.6:
        w += bytes(r.randrange(1, 100))
    return bytes(w)


# --- ONNX -------------------------------------------------------------------

ONNXDIR = "/usr/share/libonnx-testdata/data/node"
ONNXINTS = [0, 1, -1, 2, 3, -2, 7, 100, 2**31 - 1, 2**31, -2**31, 2**32 + 1,
            2**62, -2**63, 2**63 - 1, 65536]


def onnx_corpus():
    out = [os.path.join(ONNXDIR, t, "model.onnx")
           for t in sorted(os.listdir(ONNXDIR))] if os.path.isdir(ONNXDIR) \
        else []
    return out + [ROOT + "/examples/import_test/model.onnx"]


def onnx_mutate(r, m, d):
    """Mutate ONNX model m in place; external data files go in d."""
    import onnx
    from onnx import helper
    g = m.graph
    k = r.random()
    if g.node and k < 0.35:
        n = r.choice(list(g.node))
        if n.attribute and r.random() < 0.8:
            a = r.choice(n.attribute)
            if a.type == onnx.AttributeProto.INT:
                a.i = r.choice(ONNXINTS)
            elif a.type == onnx.AttributeProto.INTS:
                if a.ints and r.random() < 0.7:
                    a.ints[r.randrange(len(a.ints))] = r.choice(ONNXINTS)
                else:
                    a.ints.append(r.choice(ONNXINTS))
            elif a.type == onnx.AttributeProto.FLOAT:
                a.f = r.choice([0.0, -1.0, 1e30, float("nan"),
                                float("inf"), 2**31])
            elif a.type == onnx.AttributeProto.STRING:
                a.s = r.choice([b"", b"SAME_UPPER", b"linear", b"nearest",
                                b"DCR", b"cubic", b"\0"])
        else:
            n.attribute.append(helper.make_attribute(
                r.choice(["axis", "axes", "perm", "pads", "strides", "k",
                          "group", "keepdims", "to", "split", "mode",
                          "output_padding", "dilations", "kernel_shape"]),
                r.choice([r.choice(ONNXINTS),
                          [r.choice(ONNXINTS) for _ in range(4)]])))
    elif g.input and k < 0.55:
        tt = r.choice(list(g.input)).type.tensor_type
        if tt.shape.dim and r.random() < 0.7:
            r.choice(list(tt.shape.dim)).dim_value = r.choice(
                [1, 2, 3, 0, 100000, 2**31, 2**32 + 1, 2**62, 2**63 - 1])
        else:
            tt.elem_type = r.choice([1, 2, 3, 6, 7, 9, 10, 11, 12, 13, 16])
    elif g.input and k < 0.8:
        # an input becomes an initializer with chosen dims and data
        vi = r.choice(list(g.input))
        tt = vi.type.tensor_type
        dims = [dv.dim_value for dv in tt.shape.dim]
        if r.random() < 0.3:
            dims = list(r.choice(BIGSHAPES))
        elif r.random() < 0.2:
            dims = [r.choice(ONNXINTS) for _ in dims] or [2**31]
        t = onnx.TensorProto(name=vi.name, dims=dims,
                             data_type=tt.elem_type or 1)
        n = numel(dims) if all(0 <= x for x in dims) else 0
        esz = {1: 4, 2: 1, 3: 1, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4,
               13: 8, 16: 2}.get(t.data_type, 4)
        raw = bytes(r.randrange(256) for _ in range(min(n * esz, 4096)))
        if r.random() < 0.3:
            external(r, t, raw, d)
        else:
            t.raw_data = raw
        g.initializer.append(t)
        if r.random() < 0.5:
            g.input.remove(vi)
    elif g.initializer:
        t = r.choice(list(g.initializer))
        if t.dims and r.random() < 0.4:
            t.dims[r.randrange(len(t.dims))] = r.choice(ONNXINTS)
        elif r.random() < 0.5:
            external(r, t, t.raw_data or b"\0" * 16, d)
        else:
            t.data_type = r.choice([1, 2, 3, 6, 7, 9, 10, 11, 12, 13, 16])
    if r.random() < 0.05 and m.opset_import:
        m.opset_import[0].version = r.choice([1, 6, 9, 11, 13, 18, 30])


def external(r, t, raw, d):
    import onnx
    with open(os.path.join(d, "ext.bin"), "wb") as f:
        f.write(raw)
    t.ClearField("raw_data")
    t.data_location = onnx.TensorProto.EXTERNAL
    loc = r.choice(["ext.bin"] * 4 + ["../ext.bin", "/dev/zero", "nosuch",
                                      "", "/etc/passwd", "."])
    kv = [("location", loc)]
    if r.random() < 0.5:
        kv.append(("offset", str(r.choice([0, 1, len(raw), bound(r)]))))
    if r.random() < 0.5:
        kv.append(("length", str(r.choice([len(raw), len(raw) + 1,
                                           bound(r)]))))
    for key, v in kv:
        e = t.external_data.add()
        e.key, e.value = key, v


# --- inputs kept sound ------------------------------------------------------
#
# The mutators above make inputs that the first parser mostly refuses.
# These keep a sound model sound (the same structure, types and shapes,
# other values), so that the passes after the parser and the back ends
# see it: fuzz.py makes two inputs of every three with them.

INTRANGE = {"int8": (-2**7, 2**7 - 1), "uint8": (0, 2**8 - 1),
            "int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1),
            "int64": (-2**63, 2**63 - 1), "uint64": (0, 2**64 - 1),
            "int4": (-8, 7), "uint4": (0, 15)}
INTFMT = {"int8": "b", "uint8": "B", "int32": "i", "uint32": "I",
          "int64": "q", "uint64": "Q"}


def ints(r, dt, n):
    """n integers of type dt as bytes: small ones mostly, the type's
    extremes sometimes."""
    lo, hi = INTRANGE[dt]
    vals = [r.choice([0, 1, 2, 3, -1 if lo else 5]) if r.random() < 0.6
            else r.choice([lo, hi, r.randint(lo, hi)]) for _ in range(n)]
    if dt in ("int4", "uint4"):
        vals += [0] * (n % 2)
        return bytes((vals[i] & 15) | (vals[i + 1] & 15) << 4
                     for i in range(0, n, 2))
    return struct.pack("<%d%s" % (n, INTFMT[dt]), *vals)


def values(r, dt, n):
    """n values of type dt (a key of SIZE) as little-endian bytes."""
    return floats(r, dt, n) if dt.startswith("float") else ints(r, dt, n)


def sound(shape, limit=4096):
    return isinstance(shape, list) and all(
        isinstance(d, int) and 0 <= d for d in shape) and \
        numel(shape) <= limit


def vary_graph(r, g):
    """A copy of graph g with new values in its constants, and some of
    its inputs turned into constants of the same type and shape."""
    g = json.loads(json.dumps(g))
    consts = g.get("consts") or {}
    for t in consts.values():
        init, dt = t.get("init") or {}, t.get("dataType")
        if dt not in SIZE or r.random() < 0.4:
            continue
        if init.get("kind") == "inlineBytes" and sound(t.get("shape")) \
                and len(init.get("bytes", [])) == nbytes(dt, t["shape"]):
            init["bytes"] = list(values(r, dt, numel(t["shape"])))
        elif init.get("kind") == "scalar":
            init["value"] = r.choice(
                [r.uniform(-4, 4), 0.0, -0.0, 1.0, 65504.0, -65504.0]) \
                if dt.startswith("float") else r.choice(
                    [0, 1, 2, INTRANGE[dt][0], INTRANGE[dt][1]])
    ins = g.get("inputs") or {}
    for name in list(ins):
        t = ins[name]
        if r.random() < 0.3 and t.get("dataType") in SIZE and \
                sound(t.get("shape")):
            del ins[name]
            t["init"] = {"kind": "inlineBytes", "bytes": list(
                values(r, t["dataType"], numel(t["shape"])))}
            consts[name] = t
    if consts:
        g["consts"] = consts
    return g


def npy_parse(b):
    """(descr, shape, offset of the data) of .npy bytes, or None."""
    if b[:6] != b"\x93NUMPY" or len(b) < 10:
        return None
    if b[6] == 1:
        n, off = struct.unpack("<H", b[8:10])[0], 10
    else:
        n, off = struct.unpack("<I", b[8:12])[0], 12
    hdr = b[off:off + n].decode("latin-1")
    d = re.search(r"'descr':\s*'([^']*)'", hdr)
    s = re.search(r"'shape':\s*\(([^)]*)\)", hdr)
    if not d or not s:
        return None
    shape = [int(x) for x in s.group(1).replace(",", " ").split()]
    return d.group(1), shape, off + n


def vary_npy(r, b):
    """.npy bytes b with new values of the same type and shape."""
    p = npy_parse(b)
    dts = {v: k for k, v in NPYDESCR.items()}
    if not p or p[0] not in dts:
        return b
    dt = dts[p[0]]
    body = values(r, dt, numel(p[1]))
    return b[:p[2]] + body if len(body) == len(b) - p[2] else b


def sound_npy(r, shape=None):
    dt = r.choice(list(NPYDESCR))
    shape = small_shape(r) if shape is None else shape
    return npy_bytes(NPYDESCR[dt], shape, values(r, dt, numel(shape)))


def sound_npz(r):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for i in range(r.randrange(1, 4)):
            z.writestr("w%d.npy" % i, sound_npy(r), compress_type=r.choice(
                [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))
    return buf.getvalue()


def onnx_ops():
    """The op types the importer converts (common/onnx/onnx_ops.def)."""
    with open(ROOT + "/common/onnx/onnx_ops.def") as f:
        return set(re.findall(r'^ONNX\("(\w+)"', f.read(), re.M))


def onnx_sound(r, files, ops):
    """A model of files made only of ops in ops, its inputs of types
    WebNN has, and its path."""
    import onnx
    for _ in range(50):
        p = r.choice(files)
        try:
            m = onnx.load(p)
        except Exception:
            continue
        if all(n.op_type in ops and n.domain in ("", "ai.onnx")
               for n in m.graph.node) and \
                all(vi.type.tensor_type.elem_type in ONNXNP
                    for vi in m.graph.input):
            return m, p
    return None, None


ONNXNP = {1: ("float32", 4), 2: ("uint8", 1), 3: ("int8", 1),
          6: ("int32", 4), 7: ("int64", 8), 9: ("uint8", 1),
          12: ("uint32", 4), 13: ("uint64", 8), 10: ("float16", 2)}


def onnx_vary(r, m, path):
    """Model m, loaded from path, with some inputs made initializers:
    the integer ones (axes, shapes, counts) hold the test's own values
    from test_data_set_0 beside path, the others new values."""
    import onnx
    g = m.graph
    inits = {t.name for t in g.initializer}
    ins = [vi for vi in g.input if vi.name not in inits]
    d = os.path.join(os.path.dirname(path), "test_data_set_0")
    for i, vi in enumerate(ins):
        t = onnx.TensorProto()
        try:
            with open(os.path.join(d, "input_%d.pb" % i), "rb") as f:
                t.ParseFromString(f.read())
        except OSError:
            continue
        integer = t.data_type not in (1, 10, 11, 16)
        if not integer and (r.random() < 0.6 or t.data_type not in ONNXNP):
            continue
        t.name = vi.name
        if not integer:
            dt, _ = ONNXNP[t.data_type]
            t.ClearField("float_data")
            t.raw_data = values(r, dt, numel(list(t.dims)))
        g.initializer.append(t)
        g.input.remove(vi)


# --- hostile names and labels -----------------------------------------------

# Pieces of a file name a shell or a compiler would misread: quotes,
# separators, expansions that create PWNED in the current directory,
# blanks and line ends, non-UTF-8 bytes (surrogateescape: os.fsencode
# gives the byte back), and "fzq", which every hostile name holds so
# that a file made from one anywhere else is found (fz_stray()).
SHELLY = ["'", '"', ";", "$(touch PWNED)", "`touch PWNED`", ";touch PWNED;",
          "' ;touch PWNED; '", '" ;touch PWNED; "', "|touch PWNED", " ",
          "\n", "\t", "&", "*", "?", "$HOME", "\\", "%s%n", "\udcff\udcfe",
          "\u202e", "\u00e9", "{a,b}", "~", "#", "!", "<x>", "=", ":", ","]
LEADS = ["-", "@", "--", "-o", "-wrapper", "@@", " ", "\n", "'", "-e"]


def hostile_name(r, ext=""):
    """A file or directory name (one component) with shell and option
    metacharacters, "fzq" in it, ending in ext; sometimes very long
    (255 bytes at most)."""
    s = "fzq"
    for _ in range(r.randrange(1, 4)):
        s += r.choice(SHELLY)
    if r.random() < 0.5:
        s = r.choice(LEADS) + s
    if r.random() < 0.05:     # up to NAME_MAX, or nearly
        n = len(os.fsencode(s + ext))
        s += "a" * max(0, r.choice([200, 250, 255]) - n)
    return s + ext


# Labels for nodes and tensors that break markup: XML specials, a CDATA
# end, control characters, bidi controls, noncharacters, an escape of
# DOT's own (\N, \l), and characters XML 1.0 cannot hold.
LABELS = ["<", ">", "&", "&amp;", "&#1;", "&#x202e;", '"', "'", "]]>",
          "\x01", "\x1b[31m", "\x7f", "\u202e", "\u2066", "\u2069",
          "\u200f", "\ufffe", "\uffff", "\U0010ffff", "\u2028", "\\",
          "\\N", "\\l", "\\G", "{", "}", "|", "--", "<!--", "\t", "\r\n",
          "\u00e9", "\U0001f600", "\ufdd0"]


def hostile_label(r):
    s = "".join(r.choice(LABELS) for _ in range(r.randrange(1, 5)))
    return s + "x" * r.randrange(0, 3)


def rename_graph(r, g, namer):
    """Rename g's inputs, constants and nodes (every reference too) with
    fresh names from namer(r), kept distinct; the graph's name also."""
    ren = {}
    for k in list(g.get("inputs") or {}) + list(g.get("consts") or {}) + \
            [n.get("id") for n in g.get("nodes") or []
             if isinstance(n, dict)]:
        if isinstance(k, str) and k not in ren and r.random() < 0.7:
            ren[k] = "%s%d" % (namer(r), len(ren))

    def sub(x):
        return ren.get(x, x) if isinstance(x, str) else x
    for key in ("inputs", "consts"):
        if isinstance(g.get(key), dict):
            g[key] = {sub(k): v for k, v in g[key].items()}
    for n in g.get("nodes") or []:
        if isinstance(n, dict):
            n["id"] = sub(n.get("id"))
            if isinstance(n.get("inputs"), list):
                n["inputs"] = [sub(x) for x in n["inputs"]]
    if isinstance(g.get("outputs"), dict):
        g["outputs"] = {(namer(r) if r.random() < 0.5 else k): sub(v)
                        for k, v in g["outputs"].items()}
    if r.random() < 0.5:
        g["name"] = namer(r)
    return g


# Numbers no tensor has: beyond every integer type and float, non-finite
# as JSON spells them (refused) or as overflowing literals (inf).
WILD = [b"1e999", b"-1e999", b"1e308", b"-1.7976931348623157e308",
        b"18446744073709551616", b"-9223372036854775809", b"4e9", b"-0.0",
        b"1e-320", b"NaN", b"Infinity", b"9.9e18", b"2147483648.5"]


def wild_numbers(r, text, p=0.05):
    """JSON text with some of its numbers replaced by WILD ones."""
    return NUM.sub(lambda m: r.choice(WILD) if r.random() < p else
                   m.group(0), text)

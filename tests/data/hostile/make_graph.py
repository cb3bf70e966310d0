#!/usr/bin/python3
"""make_graph: a webnn-graph JSON whose every name (graph, inputs,
consts, node ids, intermediate operands, outputs) is hostile: comment
ends, preprocessor lines, quotes, backslash, U+2028, </script>, ${,
backticks, __proto__, constructor, 1 MB; with --plain the same graph
with plain names.  Each payload, if it ever ran as code, would create
the file MARKER (or print INJECTED).  Writes DIR/g.json, DIR/in.bin (the
inputs' bytes in graph order), DIR/values.json (the inputs by name) and
DIR/expected.json (numpy's outputs, in graph order, by name).
Usage: make_graph.py DIR [--plain]"""
import json
import sys

import numpy as np

C_PAY = ('*/ extern int system(const char *); __attribute__((constructor)) '
         'static void pwn(void) { system("touch MARKER"); } /*')
JS_PAY = ('await import("node:fs").then((f) => f.writeFileSync("MARKER", '
          '"")); console.log("INJECTED");')
HOSTILE = {
    "graph": "net\n" + C_PAY + "\n// \u2028" + JS_PAY + "\n#define float int",
    "x": "__proto__",
    "y": C_PAY + "\n#include <stdio.h>\n\"; " + JS_PAY + " \"",
    "c": "constructor",
    "s": "#include \"/etc/passwd\"\n'\\??/\u2029" + JS_PAY,
    "t": "toString",
    "u": "A" * (1 << 20),
    "v": "</script><script>" + JS_PAY + "</script><!-- `${" + JS_PAY + "}`",
    "w": "/* \u2028" + JS_PAY + "\n" + C_PAY,
    "out_v": "__proto__",
    "out_w": "constructor",
    "out_t": "hasOwnProperty\n" + C_PAY + "`${" + JS_PAY + "}`",
    "out_u": "B" * (1 << 20),
}
PLAIN = {k: k for k in HOSTILE}
PLAIN["graph"] = "plain"


def main():
    d = sys.argv[1]
    n = PLAIN if "--plain" in sys.argv[2:] else HOSTILE
    r = np.random.default_rng(11)
    x = r.standard_normal((2, 3)).astype(np.float32)
    y = r.standard_normal((2, 3)).astype(np.float32)
    c = r.standard_normal((2, 3)).astype(np.float32)
    s = np.float32(0.25)
    f32 = {"dataType": "float32", "shape": [2, 3]}
    g = {
        "format": "webnn-graph-json", "version": 1, "name": n["graph"],
        "inputs": {n["x"]: f32, n["y"]: f32},
        "consts": {
            n["c"]: dict(f32, init={"kind": "inlineBytes",
                                    "bytes": list(c.tobytes())}),
            n["s"]: {"dataType": "float32", "shape": [],
                     "init": {"kind": "scalar", "value": float(s)}},
        },
        "nodes": [
            {"id": n["t"], "op": "add", "inputs": [n["x"], n["c"]]},
            {"id": n["u"], "op": "mul", "inputs": [n["t"], n["y"]]},
            {"id": n["v"], "op": "relu", "inputs": [n["u"]]},
            {"id": n["w"], "op": "sub", "inputs": [n["v"], n["s"]]},
        ],
        "outputs": {n["out_v"]: n["v"], n["out_w"]: n["w"],
                    n["out_t"]: n["t"], n["out_u"]: n["u"]},
    }
    t = x + c
    u = t * y
    v = np.maximum(u, np.float32(0))
    w = v - s
    with open(d + "/g.json", "w") as f:
        json.dump(g, f)
    with open(d + "/in.bin", "wb") as f:
        f.write(x.tobytes() + y.tobytes())
    with open(d + "/values.json", "w") as f:
        json.dump({n["x"]: x.ravel().tolist(), n["y"]: y.ravel().tolist()},
                  f)
    with open(d + "/expected.json", "w") as f:
        json.dump([[n["out_v"], v.ravel().tolist()],
                   [n["out_w"], w.ravel().tolist()],
                   [n["out_t"], t.ravel().tolist()],
                   [n["out_u"], u.ravel().tolist()]], f)


if __name__ == "__main__":
    main()

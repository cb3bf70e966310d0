#!/usr/bin/python3
"""compare: raw float32 outputs (a C program's, in graph order) or a
run-module.mjs result (by name) against make_graph.py's expected.json.
Usage: compare.py expected.json out.bin | compare.py expected.json
res.json --js [INPUT-NAMES.json]"""
import json
import sys

import numpy as np

exp = json.load(open(sys.argv[1]))
if "--js" in sys.argv:
    r = json.load(open(sys.argv[2]))
    names = [k for k, _ in exp]
    assert r["outputs"] == names, "outputs table: %r" % [
        k[:40] for k in r["outputs"]]
    assert sorted(r["result"]) == sorted(names), "result keys"
    if len(sys.argv) > 4:
        ins = list(json.load(open(sys.argv[4])))
        assert r["inputs"] == ins, "inputs table: %r" % [
            k[:40] for k in r["inputs"]]
    for k, v in exp:
        np.testing.assert_allclose(r["result"][k], v, rtol=1e-6, atol=0)
else:
    got = np.fromfile(sys.argv[2], dtype=np.float32)
    want = np.concatenate([np.array(v, dtype=np.float32) for _, v in exp])
    assert got.shape == want.shape, "%s values, expected %s" % (
        got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
print("same as numpy: %d outputs" % len(exp))

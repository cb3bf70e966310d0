#!/usr/bin/python3
"""ort-timer.py: bench/ort-timer.mjs for ONNX Runtime's Python package,
for a machine that has it and no Node.js (bench/ort.py --ort python).
The same arguments and protocol:
  python3 ort-timer.py MODEL.onnx IN.bin OUT.bin THREADS INPUTS
INPUTS: the model's inputs as JSON, [{"name", "dtype", "shape"}, ...],
packed one after another in IN.bin (raw little-endian); the first
output is written to OUT.bin.  Then commands on standard input: "run K"
prints K times in milliseconds, "rss" the peak resident set (VmHWM) in
kilobytes.  The timed region is session.run() from Python.
"""
import json
import re
import sys
import time

import numpy as np
import onnxruntime as ort


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: ort-timer.py MODEL.onnx IN.bin OUT.bin THREADS "
                 "INPUTS")
    model, inp, outp, threads, spec = sys.argv[1:]
    so = ort.SessionOptions()
    so.intra_op_num_threads = int(threads)
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(model, so,
                                providers=["CPUExecutionProvider"])
    data = open(inp, "rb").read()
    feeds, off = {}, 0
    for x in json.loads(spec):
        t = np.dtype(x["dtype"]).newbyteorder("<")
        n = int(np.prod(x["shape"]))
        if off + n * t.itemsize > len(data):
            sys.exit("ort-timer: %s: too short for %s" % (inp, x["name"]))
        feeds[x["name"]] = np.frombuffer(data, t, n, off).astype(
            x["dtype"]).reshape(x["shape"])
        off += n * t.itemsize
    if off != len(data):
        sys.exit("ort-timer: %s: %d bytes left over" % (inp, len(data) - off))
    y = sess.run(None, feeds)[0]
    np.ascontiguousarray(y).tofile(outp)
    print("ready", flush=True)
    for line in sys.stdin:
        m = re.match(r"run (\d+)", line)
        if m:
            ts = []
            for _ in range(int(m.group(1))):
                t0 = time.perf_counter_ns()
                sess.run(None, feeds)
                ts.append("%.4f" % ((time.perf_counter_ns() - t0) / 1e6))
            print(" ".join(ts), flush=True)
        elif line.startswith("rss"):
            with open("/proc/self/status") as f:
                hwm = re.search(r"VmHWM:\s*(\d+)", f.read())
            print(hwm.group(1) if hwm else "-1", flush=True)
        else:
            break


if __name__ == "__main__":
    main()

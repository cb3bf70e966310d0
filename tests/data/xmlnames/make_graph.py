#!/usr/bin/python3
"""make_graph: a webnn-graph JSON (written to the file named by argv[1])
whose every name holds what XML cannot hold or shows in another order:
U+FFFE and U+FFFF (no XML character, not even as &#65534;), U+10FFFF
and U+FDD0 (noncharacters), the bidi controls U+202A-202E and
U+2066-2069, U+061C, U+200E/F, control bytes (U+0001, U+001B, DEL,
tab, line ends), and markup: & < > ]]> " '.  Each name differs, so
every node, input and output has its own label."""
import json
import sys

BAD = ("\ufffe\uffff\U0010ffff\ufdd0" + "".join(map(chr, range(0x202a, 0x202f)))
       + "".join(map(chr, range(0x2066, 0x206a))) + "\u061c\u200e\u200f"
       + "\x01\x1b\x7f\t\r\n&<>]]>\"'")
x, n, m, o = "x" + BAD, "n" + BAD, "m" + BAD, "o" + BAD
g = {"format": "webnn-graph-json", "version": 1, "name": "g" + BAD,
     "inputs": {x: {"dataType": "float32", "shape": [2, 2]}},
     "consts": {},
     "nodes": [{"id": n, "op": "relu", "inputs": [x]},
               {"id": m, "op": "tanh", "inputs": [n]}],
     "outputs": {o: m}}
with open(sys.argv[1], "w") as f:
    json.dump(g, f)

#!/usr/bin/python3
"""check: each file named is well-formed XML (an HTML page: each <svg>
element in it, with the namespaces an HTML parser gives it) holding
none of the characters make_graph.py's names carry raw: no U+FFFE,
U+FFFF, noncharacter, bidi control or control character other than
tab and line ends outside the names, and the escapes \\u{FFFE},
\\u{202E} and \\u{2069} visible in its text.  Exits 1 naming the first
failure."""
import re
import sys
import xml.etree.ElementTree as ET

RAW = re.compile("[\ufffe\uffff\U0010ffff\ufdd0\u202a-\u202e\u2066-\u2069"
                 "\u061c\u200e\u200f\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
bad = 0
for f in sys.argv[1:]:
    text = open(f, encoding="utf-8").read()
    if f.endswith(".html"):
        parts = re.findall(r"<svg\b.*?</svg>", text, re.S)
        parts = [re.sub(r"^<svg\b", '<svg xmlns="http://www.w3.org/2000/svg"'
                        ' xmlns:xlink="http://www.w3.org/1999/xlink"', p, 1)
                 if "xmlns=" not in p.split(">", 1)[0] else p for p in parts]
    else:
        parts = [text]
    if not parts:
        print(f"{f}: no SVG")
        bad = 1
    for p in parts:
        try:
            t = ET.fromstring(p)
        except ET.ParseError as e:
            print(f"{f}: not well-formed: {e}")
            bad = 1
            continue
        got = "".join(t.itertext()) + "".join(
            v for e in t.iter() for v in e.attrib.values())
        if m := RAW.search(got):
            print(f"{f}: raw U+{ord(m.group()):04X} in the text")
            bad = 1
    for esc in ("\\u{FFFE}", "\\u{202E}", "\\u{2069}"):
        if esc not in text:
            print(f"{f}: no {esc} in the text")
            bad = 1
    print(f"{f}: {len(parts)} SVG checked")
sys.exit(bad)

#!/usr/bin/python3
"""ttysafe: check that a program's text for a terminal cannot command
it or forge a line.  Reads FILE and fails (exit 1, saying why) when it
holds a control byte other than a line end or a tab, is not UTF-8, holds
a C1 control or a character that reorders or breaks text (U+061C,
U+200E, U+200F, U+2028 to U+202E, U+2066 to U+2069, U+FEFF), or has a
line longer than --max bytes.  With --prog NAME, every line must start
with "NAME: " or with a space or tab (a continuation, a source line or
a caret under it), so that no line of the output is a forged message.
Usage: ttysafe.py FILE [--prog NAME] [--max N]"""
import sys

HIDDEN = ({0x61C, 0x200E, 0x200F, 0xFEFF} | set(range(0x80, 0xA0)) |
          set(range(0x2028, 0x202F)) | set(range(0x2066, 0x206A)))


def main():
    args = sys.argv[1:]
    path, prog, most = args[0], None, None
    if "--prog" in args:
        prog = args[args.index("--prog") + 1]
    if "--max" in args:
        most = int(args[args.index("--max") + 1])
    data = open(path, "rb").read()
    for i, b in enumerate(data):
        if (b < 0x20 and b not in (0x0A, 0x09)) or b == 0x7F:
            sys.exit("%s: control byte 0x%02x at offset %d" % (path, b, i))
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        sys.exit("%s: not UTF-8: %s" % (path, e))
    for i, ch in enumerate(text):
        if ord(ch) in HIDDEN:
            sys.exit("%s: character U+%04X at %d" % (path, ord(ch), i))
    for n, line in enumerate(data.split(b"\n"), 1):
        if most is not None and len(line) > most:
            sys.exit("%s:%d: line of %d bytes" % (path, n, len(line)))
        if prog and line and not (line.startswith(prog.encode() + b": ")
                                  or line[:1] in (b" ", b"\t")):
            sys.exit("%s:%d: a line that is not %s's: %r"
                     % (path, n, prog, line[:80]))


main()

"""fuzzcheck: what scripts/fuzz.py asks of the pictures and pages nnl
writes, judged without nnl's code: SVG is well-formed XML (Python's
expat), the SVGs inside an HTML page each are, and DOT text has its
quotes, HTML-like labels and braces balanced.  Each function returns
None, or what is wrong, in a line."""
import re
import xml.etree.ElementTree as ET

XLINK = ' xmlns:xlink="http://www.w3.org/1999/xlink"'


def xml_error(text, what="SVG"):
    try:
        ET.fromstring(text)
    except ET.ParseError as e:
        line = e.position[0] if hasattr(e, "position") else 0
        near = text.splitlines()[line - 1][:120] if 0 < line <= len(
            text.splitlines()) else ""
        return "%s is not well-formed XML: %s: %r" % (what, e, near)
    return None


def page_error(html):
    """The SVGs of an HTML page (which drops their namespaces), each
    given its xlink declaration back; a page that loads a script."""
    if re.search(r"<script|<link|<iframe|\bsrc=|@import", html, re.I):
        return "the page loads something: %s" % re.search(
            r"<script|<link|<iframe|\bsrc=|@import", html, re.I).group(0)
    blocks = re.findall(r"<svg\b.*?</svg>", html, re.S)
    if html.count("<svg") != len(blocks):
        return "%d <svg but %d closed" % (html.count("<svg"), len(blocks))
    for i, b in enumerate(blocks):
        if "xmlns:xlink" not in b.split(">", 1)[0]:
            b = b.replace("<svg", "<svg" + XLINK, 1)
        err = xml_error(b, "the page's SVG %d" % (i + 1))
        if err:
            return err
    return None


def dot_error(text):
    """Quoted strings closed (backslash escapes the next character),
    HTML-like <...> labels nested, braces balanced, no NUL."""
    if "\0" in text:
        return "a NUL byte in the DOT"
    depth = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                return "a quoted string opened at offset %d never ends" % i
            i = j + 1
            continue
        if ch == "<":
            k, j = 1, i + 1
            while j < n and k:
                k += {"<": 1, ">": -1}.get(text[j], 0)
                j += 1
            if k:
                return "an HTML-like label at offset %d never ends" % i
            i = j
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return "a '}' at offset %d closes nothing" % i
        i += 1
    return "%d unclosed '{'" % depth if depth else None

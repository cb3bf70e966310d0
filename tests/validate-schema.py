#!/usr/bin/python3
"""validate-schema: check JSON files against a JSON Schema.

Usage: validate-schema.py SCHEMA FILE...
The draft is the one the schema's "$schema" names (ours: 2020-12), and
the schema itself is checked against it first.  Files are read as nnl's
reader reads them: duplicate keys, NaN and Infinity are errors.  Every
error is one line, "FILE: JSON-PATH: message", sorted by path; the last
line counts the files.  Exit 0 when all are valid, 1 when any is not or
cannot be read, 2 for a usage error.
"""
import difflib
import json
import sys

import jsonschema


def usage():
    print("usage: validate-schema.py schema file...", file=sys.stderr)
    sys.exit(2)


def nodups(pairs):
    keys = [k for k, _ in pairs]
    for k in keys:
        if keys.count(k) > 1:
            raise ValueError("duplicate key %s" % json.dumps(k))
    return dict(pairs)


def noconstant(name):
    raise ValueError("%s is not JSON" % name)


def load(path):
    """The document, or raise ValueError/OSError with a message."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return json.loads(text, object_pairs_hook=nodups,
                      parse_constant=noconstant)


def closest(e):
    """Of the alternatives an anyOf/oneOf error tried, the one that got
    furthest into the document (its errors the deepest), and in it the
    deepest error: for an init of kind inlineBytes, the bad byte rather
    than a missing "ref"."""
    branches = {}
    for sub in e.context:
        branches.setdefault(sub.schema_path[0], []).append(sub)
    best = max(sorted(branches.items(), key=lambda kv: str(kv[0])),
               key=lambda kv: min(len(x.path) for x in kv[1]))[1]
    return max(best, key=lambda x: len(x.path))


def message(e):
    """The error's message: long enums shortened (with a guess at what
    was meant), anyOf/oneOf followed by their likeliest cause."""
    if e.validator == "enum" and len(e.validator_value) > 12:
        msg = "%s is not one of the %d allowed values" % (
            json.dumps(e.instance), len(e.validator_value))
        names = {v.lower(): v for v in e.validator_value
                 if isinstance(v, str)}
        if isinstance(e.instance, str):
            near = difflib.get_close_matches(e.instance.lower(), names, 1)
            if near:
                msg += " (did you mean %s?)" % json.dumps(names[near[0]])
        return msg
    msg = e.message
    if len(msg) > 200:
        msg = msg[:200] + "..."
    if e.context:
        sub = closest(e)
        where = sub.json_path + ": " if sub.json_path != e.json_path else ""
        msg += " (closest: %s%s)" % (where, message(sub))
    return msg


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0].startswith("-"):
        usage()
    try:
        schema = load(args[0])
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
    except (OSError, ValueError) as e:
        print("%s: %s" % (args[0], e))
        sys.exit(1)
    except jsonschema.exceptions.SchemaError as e:
        print("%s: not a valid schema: %s" % (args[0], e.message))
        sys.exit(1)
    validator = cls(schema)
    bad = 0
    for path in args[1:]:
        try:
            doc = load(path)
        except (OSError, ValueError) as e:
            print("%s: cannot read: %s" % (path, e))
            bad += 1
            continue
        errors = sorted(validator.iter_errors(doc),
                        key=lambda e: (list(map(str, e.absolute_path)),
                                       e.message))
        for e in errors:
            print("%s: %s: %s" % (path, e.json_path, message(e)))
        bad += 1 if errors else 0
    print("%d file%s checked, %d invalid" % (
        len(args) - 1, "" if len(args) == 2 else "s", bad))
    sys.exit(1 if bad else 0)


main()

#!/usr/bin/python3
"""validate-schema: validate JSON files against a JSON Schema.

Usage: validate-schema.py SCHEMA FILE...
Prints one line per error (file, JSON path, message); exit 1 if any.
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    doc = json.load(open(path))
    for e in validator.iter_errors(doc):
        loc = "/".join(str(p) for p in e.absolute_path)
        print("%s: /%s: %s" % (path, loc, e.message[:300]))
        bad = 1
print("%d files checked" % (len(sys.argv) - 2))
sys.exit(bad)

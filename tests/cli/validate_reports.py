#!/usr/bin/python3
"""Validates every report JSON given on the command line against docs/report.schema.json."""
import json
import sys

import jsonschema

schema_path, *reports = sys.argv[1:]
with open(schema_path) as f:
    schema = json.load(f)
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in reports:
    with open(path) as f:
        doc = json.load(f)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors:
        print(f"{path}: {'/'.join(map(str, e.path)) or '(root)'}: {e.message}")
    bad += bool(errors)
print(f"{len(reports) - bad} of {len(reports)} reports valid")
sys.exit(1 if bad or not reports else 0)

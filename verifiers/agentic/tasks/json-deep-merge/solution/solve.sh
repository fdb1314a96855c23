#!/bin/bash
cat > /work/merge.py <<'EOF'
"""python3 merge.py BASE OVERRIDE: the deep merge of two JSON objects, printed as JSON."""
import copy
import json
import sys


def merge(base, over):
    out = copy.deepcopy(base)
    for key, value in over.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


with open(sys.argv[1]) as a, open(sys.argv[2]) as b:
    print(json.dumps(merge(json.load(a), json.load(b)), indent=2, sort_keys=True))
EOF
python3 /work/merge.py /work/config/defaults.json /work/config/local.json > /work/config/merged.json

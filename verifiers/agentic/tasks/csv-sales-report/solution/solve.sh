#!/bin/bash
cat > /work/report.py <<'EOF'
"""Totals per region of a sales CSV: python3 report.py FILE prints them as JSON."""
import csv
import json
import sys
from decimal import Decimal

totals = {}
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f):
        t = totals.setdefault(row["region"], [0, Decimal(0)])
        t[0] += int(row["units"])
        t[1] += int(row["units"]) * Decimal(row["unit_price"])
report = {r: {"units": u, "revenue": float(round(v, 2))} for r, (u, v) in totals.items()}
print(json.dumps(report, indent=2, sort_keys=True))
EOF
python3 /work/report.py /work/sales.csv > /work/report.json

#!/bin/bash
cat > /work/ini2env.py <<'EOF'
"""python3 ini2env.py FILE.ini: the file's settings as shell variable assignments."""
import configparser
import re
import sys

config = configparser.ConfigParser(interpolation=None)
config.read(sys.argv[1])
lines = {}
for section in config.sections():
    for key, value in config[section].items():
        name = re.sub(r"[^A-Z0-9]", "_", f"{section}_{key}".upper())
        for ch in '\\"$`':
            value = value.replace(ch, "\\" + ch)
        lines[name] = f'{name}="{value}"'
for name in sorted(lines):
    print(lines[name])
EOF
python3 /work/ini2env.py /work/app.ini > /work/app.env

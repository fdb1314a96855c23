#!/bin/bash
cat > /work/wordfreq <<'EOF'
#!/usr/bin/env python3
"""Print the N (argument 1, default 10) most frequent words of stdin: count, space, word."""
import collections
import re
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
counts = collections.Counter(w.lower() for w in re.findall(r"[A-Za-z]+", sys.stdin.read()))
for word, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]:
    print(count, word)
EOF
chmod +x /work/wordfreq
/work/wordfreq 5 < /work/sample.txt > /work/top5.txt

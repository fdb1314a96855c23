#!/bin/bash
mkdir -p /work/site
printf '<!doctype html>\n<h1>hello from grpo</h1>\n' > /work/site/index.html
cat > /work/minihttpd.ini <<'EOF'
[server]
listen = 127.0.0.1
port = 8080
root = /work/site

[headers]
Cache-Control = no-store
EOF

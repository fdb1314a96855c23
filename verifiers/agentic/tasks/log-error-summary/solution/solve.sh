#!/bin/bash
cat > /work/errsum.sh <<'EOF'
#!/bin/bash
# errsum.sh LOGFILE: ERROR lines per service, "service count", most first, then by name.
awk '$2 == "ERROR" && $3 ~ /^\[.*\]$/ { n[substr($3, 2, length($3) - 2)]++ }
     END { for (s in n) print s, n[s] }' "$1" | LC_ALL=C sort -k2,2nr -k1,1
EOF
chmod +x /work/errsum.sh
bash /work/errsum.sh /work/logs/app.log > /work/errors.txt

#!/bin/bash
cat > /work/cleanup.sh <<'EOF'
#!/bin/bash
# cleanup.sh DIR DAYS: delete the regular files under DIR last modified more than DAYS days ago.
dir=$1 days=$2
cutoff=$(( $(date +%s) - days * 86400 ))
count=0
while IFS= read -r -d '' f; do
  if [ "$(stat -c %Y -- "$f")" -lt "$cutoff" ]; then
    rm -f -- "$f" && count=$((count + 1))
  fi
done < <(find "$dir" -type f -print0)
echo "$count"
EOF
chmod +x /work/cleanup.sh
echo '30 3 * * * bash /work/cleanup.sh /work/scratch 7' > /work/crontab

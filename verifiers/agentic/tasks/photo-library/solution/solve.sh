#!/bin/bash
cd /work/inbox
shopt -s nocasematch
for f in *; do
  if [[ $f =~ ^IMG_([0-9]{4})([0-9]{2})([0-9]{2})_([0-9]{2})([0-9]{2})([0-9]{2})\.(jpe?g)$ ]] ||
     [[ $f =~ ^Photo\ ([0-9]{4})-([0-9]{2})-([0-9]{2})\ at\ ([0-9]{2})\.([0-9]{2})\.([0-9]{2})\.(jpe?g)$ ]]; then
    m=("${BASH_REMATCH[@]}")
    dir="/work/library/${m[1]}/${m[2]}"
    mkdir -p "$dir"
    cp "$f" "$dir/${m[1]}-${m[2]}-${m[3]}_${m[4]}${m[5]}${m[6]}.jpg"
  fi
done

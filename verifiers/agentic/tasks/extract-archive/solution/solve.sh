#!/bin/bash
set -e
mkdir -p /tmp/unpack /work/release
tar -xzf /work/incoming/release.tar.gz -C /tmp/unpack
cd /tmp/unpack/project
find . -type f \( -name '*.py' -o -name '*.md' \) | while read -r f; do
  mkdir -p "/work/release/$(dirname "$f")"
  cp "$f" "/work/release/$f"
done
cd /work/release
find . -type f ! -name MANIFEST.txt | sed 's|^\./||' | LC_ALL=C sort | while read -r f; do sha256sum "$f"; done > /tmp/MANIFEST.txt
mv /tmp/MANIFEST.txt /work/release/MANIFEST.txt

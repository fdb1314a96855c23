#!/bin/bash
cd /work/deploy
find . -type d -exec chmod 0755 {} +
find . -type f -exec chmod 0644 {} +
find bin -type f -name '*.sh' -exec chmod 0755 {} +
chmod 0700 secrets
chmod 0600 secrets/*

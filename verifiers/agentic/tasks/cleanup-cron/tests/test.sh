#!/bin/bash
# Runs in a fresh verifier container after the agent's turn (separate mode): only the artifacts
# named in task.toml are carried over from the agent's container. The tests run the agent's code
# in subprocesses only; the reward is pytest's exit status, and whatever that code left running
# is killed before the verdict is written.
cd /tests || exit 1
python3 -I -m pytest -q -p no:cacheprovider --junitxml=/tmp/junit.xml test_outputs.py > /logs/verifier/pytest.txt 2>&1
status=$?
kill -9 -1 2>/dev/null
cp /tmp/junit.xml /logs/verifier/junit.xml 2>/dev/null
if [ "$status" -eq 0 ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt

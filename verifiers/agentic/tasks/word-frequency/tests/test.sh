#!/bin/bash
# Runs in a fresh verifier container after the agent's turn (separate mode): only the artifacts
# named in task.toml are carried over from the agent's container. The tests run the agent's code
# in subprocesses only, as nobody (setpriv: no capability, not the tests' uid), so it can neither
# change these files nor signal or trace this script; the reward is pytest's exit status, and
# whatever that code left running is killed before the verdict is written. The body is one { }
# block: bash parses it whole before running it.
{
  cd /tests || exit 1
  report=$(mktemp -d)  # root's own: the agent's code (run as nobody) cannot touch it
  python3 -I -m pytest -q -p no:cacheprovider --junitxml="$report/junit.xml" test_outputs.py > /logs/verifier/pytest.txt 2>&1
  status=$?
  kill -9 -1 2>/dev/null
  rm -f /logs/verifier/reward.json /logs/verifier/junit.xml
  [ -f "$report/junit.xml" ] && cp "$report/junit.xml" /logs/verifier/junit.xml
  if [ "$status" -eq 0 ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
  exit 0
}

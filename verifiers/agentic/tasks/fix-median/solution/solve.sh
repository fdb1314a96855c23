#!/bin/bash
# Reference solution: fix median (mean of the two middle values, no sorting in place) and
# raise ValueError on an empty sequence in mean and median (spread already does: max([]) raises).
cat > /work/stats/stats.py <<'EOF'
"""Small statistics helpers."""


def mean(values):
    """The arithmetic mean of ``values``; ValueError when there are none."""
    if not values:
        raise ValueError("mean of no values")
    return sum(values) / len(values)


def median(values):
    """The middle value of ``values`` once sorted; for an even count, the mean of the two middle
    values. ValueError when there are none. ``values`` itself is left as it was."""
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2


def spread(values):
    """The largest value minus the smallest; ValueError when there are none."""
    return max(values) - min(values)
EOF
cd /work/stats && python3 -m pytest -q -p no:cacheprovider test_stats.py

"""Small statistics helpers."""


def mean(values):
    """The arithmetic mean of ``values``; ValueError when there are none."""
    return sum(values) / len(values)


def median(values):
    """The middle value of ``values`` once sorted; for an even count, the mean of the two middle
    values. ValueError when there are none. ``values`` itself is left as it was."""
    values.sort()
    return values[len(values) // 2]


def spread(values):
    """The largest value minus the smallest; ValueError when there are none."""
    return max(values) - min(values)

import pytest

from stats import mean, median, spread


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_median_odd():
    assert median([3, 1, 2]) == 2


def test_median_even():
    assert median([4, 1, 3, 2]) == 2.5


def test_median_leaves_its_input():
    values = [3, 1, 2]
    median(values)
    assert values == [3, 1, 2]


def test_empty():
    for f in (mean, median, spread):
        with pytest.raises(ValueError):
            f([])

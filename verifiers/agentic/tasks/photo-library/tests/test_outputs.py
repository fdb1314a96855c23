"""Hidden tests: /work/library against the photos of /work/inbox as the image holds them."""

import os
import re

INBOX = "/work/inbox"
LIBRARY = "/work/library"
SCHEMES = [
    re.compile(r"^IMG_(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})\.(jpe?g)$", re.IGNORECASE),
    re.compile(r"^Photo (\d{4})-(\d{2})-(\d{2}) at (\d{2})\.(\d{2})\.(\d{2})\.(jpe?g)$", re.IGNORECASE),
]


def wanted():
    out = {}
    for name in os.listdir(INBOX):
        for scheme in SCHEMES:
            m = scheme.match(name)
            if m:
                y, mo, d, h, mi, s = m.groups()[:6]
                out[f"{y}/{mo}/{y}-{mo}-{d}_{h}{mi}{s}.jpg"] = open(os.path.join(INBOX, name), "rb").read()
    return out


def found():
    out = {}
    for folder, _, files in os.walk(LIBRARY):
        for name in files:
            path = os.path.join(folder, name)
            out[os.path.relpath(path, LIBRARY)] = open(path, "rb").read()
    return out


def test_every_photo_in_place_and_nothing_else():
    want, got = wanted(), found()
    assert len(want) == 7
    assert sorted(got) == sorted(want)


def test_contents_are_the_photos():
    want, got = wanted(), found()
    assert all(got.get(k) == v for k, v in want.items())

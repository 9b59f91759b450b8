"""Multi-task benchmarks: related tasks on shared features.

The paper's multi-task data (four Amazon product types) are not shipped
anywhere; :func:`newsgroups_tasks` (20 Newsgroups parent groups) and
:func:`vowel_tasks` (Vowel's speaker groups) stand in for them, and
:func:`libras_tasks` cuts movement_libras into small tasks. Each returns a
dict of ``X_<part>``, ``y_<part>`` and ``task_<part>`` arrays per part
(``train``, ``val``, ``test``).
"""

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state

from ..protocol import paper_splits, stratified_split
from .features import zscore_unit_norm
from .sources import load_keel, load_newsgroups_text

# Related binary tasks in the spirit of the paper's four Amazon product
# types: each task opposes two parent groups, and no newsgroup appears in
# two tasks, so tasks share vocabulary and topics without being copies.
NEWSGROUPS_TASKS = {
    "comp_vs_rec": (("comp.graphics", "comp.os.ms-windows.misc"),
                    ("rec.autos", "rec.motorcycles")),
    "rec_vs_sci": (("rec.sport.baseball", "rec.sport.hockey"),
                   ("sci.crypt", "sci.electronics")),
    "sci_vs_talk": (("sci.med", "sci.space"),
                    ("talk.politics.guns", "talk.politics.mideast")),
    "comp_vs_talk": (("comp.sys.ibm.pc.hardware", "comp.sys.mac.hardware"),
                     ("talk.politics.misc", "talk.religion.misc")),
}
PARTS = ("train", "val", "test")


def binary_mutual_information(presence, positive):
    """Mutual information (nats) between each word's presence and a binary label.

    ``presence`` is a sparse (documents, words) matrix, nonzero where a word
    occurs; ``positive`` a boolean label per document. Written out from the
    2 x 2 contingency table rather than with ``mutual_info_classif``, which
    ranks the words the same way but takes 20 s per task instead of 4 ms
    (it loops over the 20,000 words).
    """
    presence = sp.csr_matrix(presence, dtype=bool).astype(np.float64)
    n_documents = presence.shape[0]
    n_with_word = np.asarray(presence.sum(axis=0)).ravel()
    n_with_word_positive = np.asarray(presence[positive].sum(axis=0)).ravel()
    n_positive = positive.sum()
    # The table (word present?, label positive?) of each word, and its margins.
    joint = np.stack([
        n_with_word_positive, n_with_word - n_with_word_positive,
        n_positive - n_with_word_positive,
        n_documents - n_with_word - n_positive + n_with_word_positive])
    word_marginal = np.stack([n_with_word, n_with_word,
                              n_documents - n_with_word, n_documents - n_with_word])
    label_marginal = np.array([n_positive, n_documents - n_positive] * 2)[:, None]
    # Empty cells contribute 0 (0 log 0 = 0).
    ratio = np.divide(n_documents * joint, word_marginal * label_marginal,
                      out=np.ones_like(joint), where=joint > 0)
    return (joint / n_documents * np.log(ratio)).sum(axis=0)


def _collect(X, y, task, rows):
    """The task dictionary from the row indices of each part."""
    return {f"{name}_{part}": values[rows[part]] for part in rows
            for name, values in (("X", X), ("y", y), ("task", task))}


def newsgroups_tasks(n_train=800, n_val=400, n_test=400, n_words=200,
                     random_state=None):
    """Related binary text tasks from 20 Newsgroups, like the paper's Amazon.

    The paper's multi-task benchmark has four product types, each a binary
    task with 800/400/400 train/validation/test reviews described by the
    200 words of largest mutual information with the label. Here each task
    opposes two parent groups of 20 Newsgroups (:data:`NEWSGROUPS_TASKS`),
    each class made of two newsgroups that no other task uses: related
    tasks (the same parent topics recur) that are not identical.

    Choices, all fitted on training documents only:

    - Documents: for each task and class, ``n / 2`` of each part are drawn
      without replacement from the class's two newsgroups (balanced
      classes, as the paper's 1,000 positive and 1,000 negative reviews).
    - Candidate words: English non-stop words occurring in at least two
      training documents of the pooled tasks.
    - Vocabulary: one feature space for all tasks, the ``n_words`` words of
      largest mutual information between word presence and the task's
      label (on that task's training documents), summed over tasks.
    - Features: TF-IDF over those words, with sublinear term frequency,
      IDF from the pooled training documents and rows scaled to unit norm
      (a document with none of the words is a zero row).

    Returns
    -------
    data : dict
        ``X_*`` (float64, ``n_words`` columns), ``y_*`` (parent group names
        such as ``'comp'``, so labels mean the same in every task and a
        pooled "union" baseline stays meaningful), ``task_*`` (keys of
        :data:`NEWSGROUPS_TASKS`) and ``feature_names`` (the words, best
        first).
    """
    rng = check_random_state(random_state)
    texts, newsgroups = load_newsgroups_text()
    parent_groups = np.char.partition(newsgroups.astype(str), ".")[:, 0]
    rows = {part: [] for part in PARTS}
    task = np.empty(len(texts), dtype=object)
    for task_name, class_newsgroups in NEWSGROUPS_TASKS.items():
        for position, members in enumerate(class_newsgroups):
            pool = np.flatnonzero(np.isin(newsgroups, members))
            # The first class takes the extra document of an odd part size.
            per_part = [size // 2 + (size % 2 if position == 0 else 0)
                        for size in (n_train, n_val, n_test)]
            chosen = rng.choice(pool, size=sum(per_part), replace=False)
            task[chosen] = task_name
            for part, part_rows in zip(PARTS, np.split(chosen, np.cumsum(per_part)[:-1])):
                rows[part].append(np.sort(part_rows))
    rows = {part: np.concatenate(part_rows) for part, part_rows in rows.items()}

    train = rows["train"]
    counter = CountVectorizer(stop_words="english", min_df=2, binary=True)
    presence = counter.fit_transform(texts[train])
    score = np.zeros(presence.shape[1])
    for task_name, (positive_newsgroups, _) in NEWSGROUPS_TASKS.items():
        in_task = task[train] == task_name
        score += binary_mutual_information(
            presence[in_task], np.isin(newsgroups[train][in_task], positive_newsgroups))
    vocabulary = counter.get_feature_names_out()[np.argsort(-score, kind="stable")[:n_words]]

    tfidf = TfidfVectorizer(vocabulary=vocabulary, sublinear_tf=True).fit(texts[train])
    data = _collect(texts, parent_groups, task.astype(str), rows)
    for part in PARTS:
        data[f"X_{part}"] = tfidf.transform(data[f"X_{part}"]).toarray()
    data["feature_names"] = vocabulary
    return data


def vowel_tasks(speakers_per_task=4, sizes=None, random_state=None):
    """Vowel recognition with groups of speakers as tasks.

    Each task holds the utterances of ``speakers_per_task`` speakers of the
    same sex (consecutive speaker ids; the last group of a sex may be
    smaller). With the default, the four tasks are the four speaker groups
    of Deterding's design: speakers 0-3 and 8-11 (sex 0, 264 utterances
    each), 4-7 (sex 1, 264) and 12-14 (sex 1, 198). Every task is split on
    its own, stratified by vowel, with :func:`~benchmarks.protocol.paper_splits`
    (``sizes``; 60/20/20 if None).

    Returns
    -------
    data : dict
        ``X_*`` (float64, 10 columns, not normalised), ``y_*`` (vowels 0 to
        10) and ``task_*`` (names such as ``'sex0_speakers0-3'``).
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
            task[np.isin(speaker, members)] = f"sex{sex_code}_speakers{members[0]}-{members[-1]}"
    rows = {part: [] for part in PARTS}
    for task_name in dict.fromkeys(task):
        task_rows = np.flatnonzero(task == task_name)
        for part, positions in zip(PARTS, next(paper_splits(y[task_rows], 1, rng, sizes))):
            rows[part].append(task_rows[positions])
    return _collect(X, y, task.astype(str),
                    {part: np.concatenate(part_rows) for part, part_rows in rows.items()})


LIBRAS_CUTS = ("stratified", "permutation")


def libras_tasks(random_state=0, n_train=60, classes_per_task=5, cuts="stratified"):
    """movement_libras as three 5-class tasks of 60 training points (90 features).

    Classes 0-4, 5-9 and 10-14 (24 points each) make the tasks; split
    ``random_state`` draws ``n_train`` training points per task and tests
    on the others: 12 per class, stratified, that seed (``cuts='stratified'``),
    or the first ``n_train`` of ``numpy.random.default_rng(random_state)``'s
    permutation of the task's rows (``'permutation'``, the cuts of issue 29,
    whose class counts vary). One feature space for the multi-task model:
    the paper's z-score and unit norm, fitted on the training points of all
    the tasks. No ``val`` part.
    """
    if cuts not in LIBRAS_CUTS:
        raise ValueError("cuts must be one of %s, got %r" % (LIBRAS_CUTS, cuts))
    X, y = load_keel("movement_libras")
    y = np.unique(y, return_inverse=True)[1]
    task = y // classes_per_task
    train, test = [], []
    for t in np.unique(task):
        rows = np.flatnonzero(task == t)
        if cuts == "permutation":
            order = np.random.default_rng(random_state).permutation(len(rows))
            task_train, task_test = np.sort(order[:n_train]), np.sort(order[n_train:])
        else:
            task_train, task_test = stratified_split(y[rows], random_state, test_size=None,
                                                     train_size=n_train)
        train.append(rows[task_train])
        test.append(rows[task_test])
    data = _collect(X, y, task, {"train": np.concatenate(train), "test": np.concatenate(test)})
    data["X_train"], data["X_test"] = zscore_unit_norm(data["X_train"], data["X_test"])
    return data


def _class_groups(y, edges):
    """Tasks of consecutive classes: the class codes cut at ``edges``."""
    return np.digitize(np.unique(y, return_inverse=True)[1], edges)


def _random_thirds(y, split):
    """Three tasks of a random third of the points each (one draw a split):
    tasks from one distribution, as a user's sites or batches may be."""
    return np.random.RandomState(100 + split).randint(3, size=y.shape[0])


def _digits():
    from sklearn.datasets import load_digits
    return load_digits(return_X_y=True)


def _cancer():
    from sklearn.datasets import load_breast_cancer
    return load_breast_cancer(return_X_y=True)


# Medium tasks: the data, and the task of each point.
MEDIUM_TASKS = {
    # classes 0-3, 4-6 and 7-9
    "digits": (_digits, lambda y, split: _class_groups(y, [4, 7])),
    # its six classes in pairs
    "satimage": (lambda: load_keel("satimage"), lambda y, split: _class_groups(y, [2, 4])),
    "segment": (lambda: load_keel("segment"), _random_thirds),
    "breast_cancer": (_cancer, _random_thirds),
}


def medium_tasks(name, split):
    """Tasks of 100 to 1,600 training points each, 70/30 per task.

    ``name`` is a key of :data:`MEDIUM_TASKS` (digits and satimage cut
    into tasks of classes, segment and breast cancer into random thirds),
    ``'vowel'`` (Vowel's four groups of speakers, as :func:`vowel_tasks`) or
    ``'newsgroups'`` (:func:`newsgroups_tasks`' training and test
    documents, 800 and 400 a task, used as given). Every other set is split
    70/30 within each task, stratified (split ``split``), and z-scored with
    the pooled training statistics (``StandardScaler``, as a user would).
    """
    if name == "newsgroups":
        data = newsgroups_tasks(random_state=split)
        return {key: value for key, value in data.items()
                if key.split("_")[-1] in ("train", "test")}
    if name == "vowel":
        X, y, groups = load_keel("vowel", return_groups=True)
        # (Speakers 0-3 and 8-11 are of one sex, 4-7 and 12-14 of the other.)
        task = groups["speaker"] // 4
    else:
        load, tasks_of = MEDIUM_TASKS[name]
        X, y = load()
        task = tasks_of(y, split)
    rows = {"train": [], "test": []}
    for t in np.unique(task):
        mine = np.flatnonzero(task == t)
        train, test = stratified_split(y[mine], split)
        rows["train"].append(mine[train])
        rows["test"].append(mine[test])
    data = _collect(X, y, task, {part: np.concatenate(found) for part, found in rows.items()})
    scaler = StandardScaler().fit(data["X_train"])
    data["X_train"], data["X_test"] = (scaler.transform(data["X_train"]),
                                       scaler.transform(data["X_test"]))
    return data


MEDIUM_TASK_SETS = tuple(MEDIUM_TASKS) + ("vowel", "newsgroups")

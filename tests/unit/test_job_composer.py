"""JobComposer: the preflight's cached composition equals Hydra's compose for every job of a sweep."""

from __future__ import annotations

import pytest

from harness.errors import ConfigError
from harness.preflight import JobComposer, compose_job, expand_jobs, hydra_context, job_dict
from harness.spec import plain_dict

SWEEPS = [
    # group choice x leaf values, an added key, a nested dataset parameter
    ["experiment=smote_dp_2025", "profile=quick", "dataset=two_gaussians", "suite=moments,smote_dp_2025",
     "dataset.source.params.seed=range(2)", "generator=smote_dp", "generator.epsilon=1.0,2.0",
     "+generator.g2_params.k=1"],
    # top-level leaves (gen_seed, qi_set), a deletion and a dict value (merged by Hydra, so not cached)
    ["experiment=robin_hood_2024", "profile=paper", "dataset=adult_robin_hood", "qi_set=robin_hood",
     "suite=robin_hood_2024_adult", "generator=robin_hood", "generator.k_target=3,5", "gen_seed=0,1",
     "~generator.on_infeasible", "generator_overrides={robin_hood: {k_initial: 2}},{}"],
]  # fmt: skip


@pytest.mark.parametrize("sweep", SWEEPS, ids=["smote_dp", "robin_hood"])
def test_cached_composition_equals_hydra_for_every_job(sweep: list[str]) -> None:
    composer = JobComposer()
    with hydra_context():
        jobs = expand_jobs(sweep, multirun=True)
        assert len(jobs) == 8
        for job in jobs:
            ours, hydras = composer.compose(job), compose_job(job)
            assert job_dict(ours) == job_dict(hydras), job
            assert plain_dict(ours.hydra.runtime.choices) == plain_dict(hydras.hydra.runtime.choices)
    assert len(composer._bases) < len(jobs)  # the cache was used


def test_cached_composition_does_not_leak_values_between_jobs() -> None:
    composer = JobComposer()
    with hydra_context():
        first = composer.compose(["generator=smotenc", "generator.knn=3"])
        second = composer.compose(["generator=smotenc", "generator.knn=7"])
        third = composer.compose(["generator=smotenc", "generator.knn=3"])
    assert (first.generator.knn, second.generator.knn, third.generator.knn) == (3, 7, 3)


def test_cached_composition_reports_unknown_keys_as_hydra_does() -> None:
    composer = JobComposer()
    with hydra_context():
        composer.compose(["generator=smotenc", "generator.knn=3"])
        with pytest.raises(ConfigError, match="unknown config key 'generator.nope'"):
            composer.compose(["generator=smotenc", "generator.nope=3"])

"""A test file is named by what it tests in its tier: no file name repeats across tests/unit, tests/integration
and tests/e2e, so a name alone (in a failure, a README table, a grep) says which file is meant."""

import collections

from tests.support.data import REPO_ROOT

TIERS = ("unit", "integration", "e2e")


def test_no_test_file_name_repeats_across_the_tiers():
    found = collections.defaultdict(list)
    for tier in TIERS:
        for path in sorted((REPO_ROOT / "tests" / tier).rglob("test_*.py")):
            found[path.name].append(str(path.relative_to(REPO_ROOT)))
    assert len(found) > len(TIERS)  # the tiers were found and hold tests
    repeated = {name: paths for name, paths in found.items() if len(paths) > 1}
    assert repeated == {}, f"test file names repeated across the tiers: {repeated}"

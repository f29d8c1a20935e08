"""The figures README.md states under "Reliability and security: what was tried and held" are the
tests' own: counted from the corpus, the faults, the kill points, the readers and the archives."""

import collections
import re

from tests.e2e import test_concurrency, test_kills
from tests.integration import test_bad_input
from tests.integration import test_security as test_security_archives
from tests.support.data import REPO_ROOT
from tests.unit import test_faults, test_security, test_sql_guards

SECTION = REPO_ROOT.joinpath("README.md").read_text().split("## Reliability and security")[1].split("\n## ")[0]
OUTCOMES = {  # how the README groups the corpus's outcomes
    "end in a clear error": ("error",),
    "quarantine the rows or the file": (
        "quarantined",
        "quarantined+records",
        "quarantined-request",
        "skipped|quarantined",
    ),
    "read exactly the intact numbers": ("same", "same-value-from-summary"),
    "keep an unknown name raw and flagged": ("flagged",),
    "skip a file that is no dump": ("skipped",),
    "read what is left": ("requests-only", "missing", "precision-unknown"),
}


def stated(phrase: str) -> int:
    match = re.search(r"(?:\*\*)?([\d,]+) (?:\*\*)?" + re.escape(phrase), SECTION)
    assert match, f"README does not state '<n> {phrase}'"
    return int(match.group(1).replace(",", ""))


def test_the_readme_states_the_figures_of_the_tests():
    cases = test_bad_input.CASES
    assert stated("bad-input cases") == len(cases)
    assert stated("kinds of input") == len(test_bad_input.TARGETS)
    counts = collections.Counter(expected for *_x, expected, _reason in cases)
    assert sum(len(group) for group in OUTCOMES.values()) == len(counts)
    for phrase, group in OUTCOMES.items():
        assert stated(phrase) == sum(counts[g] for g in group), phrase
    assert stated("HTTP faults") == len(test_faults.FAULTS)
    assert stated("kill points") == len(test_kills.KILL_POINTS)
    assert stated("concurrent readers") == sum(test_concurrency.READERS.values())
    assert stated("of them also holding a connection") == sum(
        n for mode, n in test_concurrency.READERS.items() if mode != "parquet"
    )
    assert stated("hostile literals") == len(test_security.HOSTILE_TEXTS)
    assert stated("hostile archive members") == len(test_security_archives.REFUSED_MEMBERS)
    assert stated("archives over their limits") == len(test_security.BOMBS)
    assert stated("writing statements") == len(test_sql_guards.WRITES)

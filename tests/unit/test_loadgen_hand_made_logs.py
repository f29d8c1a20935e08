"""LoadGen logs written in the test: the v0.5 text form, and a file that is no LoadGen log says what was
expected."""

import pytest

from assets.formats.mlperf import loadgen


def test_v05_text_form():
    content = (
        '"pid": 101, "tid": 102, "ts": 5000ns : effective_scenario : "MultiStream"\n'
        '"pid": 101, "tid": 102, "ts": 6000ns : effective_samples_per_query : 24\n'
        '"pid": 101, "tid": 102, "ts": 7000ns : result_validity : "VALID"\n'
        "some tool chatter\n"
    )
    log = loadgen.parse_detail(content)
    assert log.form == "v0.5 text"
    assert (log.get("effective_scenario"), log.number("effective_samples_per_query")) == ("MultiStream", 24)


def test_a_file_that_is_no_loadgen_log_says_what_was_expected():
    with pytest.raises(loadgen.LoadgenError, match="no LoadGen events found"):
        loadgen.parse_detail("hello\nworld\n")
    with pytest.raises(loadgen.LoadgenError, match="MLPerf Results Summary"):
        loadgen.parse_summary("hello")

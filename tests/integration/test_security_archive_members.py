"""Archives of the real dumps read inside the dumps tree: a tar.gz of a report reads as the folder does;
no member reaches outside its folder or follows a link."""

import tarfile
from pathlib import Path

from tests.support.archives import collect, tar_gz, zip_of
from tests.support.data import INFERENCE_PERF, WORKED_RUN_YAML

# ---- archives of dumps -------------------------------------------------------------------------------


class Containing(str):
    """Equal to any text that contains it (a note's reason, whatever details follow)."""

    def __eq__(self, other):
        return isinstance(other, str) and str(self) in other

    __hash__ = str.__hash__


def stage_files() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((INFERENCE_PERF / "vllm" / "results").iterdir())}


def listing(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_a_tar_gz_of_a_report_reads_as_the_folder_does(tmp_path):
    as_folder = collect(
        tmp_path / "folder",
        {"run.yaml": WORKED_RUN_YAML.encode(), **{f"results/{k}": v for k, v in stage_files().items()}},
    )
    as_archive = collect(
        tmp_path / "archive", {"run.yaml": WORKED_RUN_YAML.encode(), "results.tar.gz": tar_gz(stage_files())}
    )

    def values(batch):
        return sorted(
            (m["offered_rate_per_s"], m["achieved_requests_per_s"], m["ttft_p95_ms"]) for m in batch.measurements
        )

    assert len(as_archive.measurements) == 7 and values(as_archive) == values(as_folder)
    assert all("/results.tar.gz/stage_" in m["source"] for m in as_archive.measurements)
    assert ("gzip archive", "read") in {(f.detected_format, f.status) for f in as_archive.files}


def test_archive_members_cannot_reach_outside_their_folder_nor_follow_links(tmp_path):
    stage = stage_files()["stage_3_lifecycle_metrics.json"]
    hostile_zip = zip_of(
        {
            "../../escape/stage_1_lifecycle_metrics.json": stage,
            "/etc/stage_2_lifecycle_metrics.json": stage,
            "C:/windows/stage_4_lifecycle_metrics.json": stage,
            "ok/stage_3_lifecycle_metrics.json": stage,
            "inner.zip": zip_of({"stage_5_lifecycle_metrics.json": stage}),
        },
        symlinks={"passwd.json": "/etc/passwd"},
    )
    hostile_tar = tar_gz(
        {"../up/stage_6_lifecycle_metrics.json": stage},
        links={
            "shadow.json": (tarfile.SYMTYPE, "/etc/shadow"),
            "hard.json": (tarfile.LNKTYPE, "/etc/passwd"),
            "pipe": (tarfile.FIFOTYPE, ""),
        },
    )
    folder = tmp_path / "dumps"
    before = listing(tmp_path)
    batch = collect(folder, {"run.yaml": WORKED_RUN_YAML.encode(), "a.zip": hostile_zip, "b.tar.gz": hostile_tar})
    assert listing(tmp_path) == sorted(before + ["dumps", "dumps/a.zip", "dumps/b.tar.gz", "dumps/run.yaml"])
    assert [m["source"].split("/dumps/")[1] for m in batch.measurements] == ["a.zip/ok/stage_3_lifecycle_metrics.json"]
    refused = {f.source.split("/dumps/")[1]: f.note for f in batch.files if f.status == "skipped"}
    assert refused == REFUSED_MEMBERS


REFUSED_MEMBERS = {
    "a.zip/../../escape/stage_1_lifecycle_metrics.json": Containing("path traversal"),
    "a.zip//etc/stage_2_lifecycle_metrics.json": Containing("absolute path"),
    "a.zip/C:/windows/stage_4_lifecycle_metrics.json": Containing("absolute path"),
    "a.zip/inner.zip": Containing("an archive inside an archive is not opened"),
    "a.zip/passwd.json": Containing("a symbolic link: links are not followed"),
    "b.tar.gz/../up/stage_6_lifecycle_metrics.json": Containing("path traversal"),
    "b.tar.gz/hard.json": Containing("a hard link to '/etc/passwd'"),
    "b.tar.gz/pipe": Containing("a device, pipe or other special file"),
    "b.tar.gz/shadow.json": Containing("a symbolic link to '/etc/shadow'"),
}

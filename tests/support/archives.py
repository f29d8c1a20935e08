"""Archives built in memory for the archive tests, and a dumps folder of files collected as a run would."""

import io
import stat
import tarfile
import zipfile
from pathlib import Path

from assets.runs.batch import ObservedBatch
from assets.runs.collect import collect_all


def tar_gz(members: dict[str, bytes], links: dict[str, tuple[bytes, str]] | None = None) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, (kind, target) in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, target
            archive.addfile(info)
    return out.getvalue()


def zip_of(members: dict[str, bytes], symlinks: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return out.getvalue()


def collect(folder: Path, files: dict[str, bytes]) -> ObservedBatch:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return collect_all([str(folder)])

"""The run store on object storage: a folder of S3 or GCS (`s3://bucket/prefix`, `gs://bucket/prefix`) that holds
a warehouse's stored run partitions (`runs/`) and owned per-request records (`records/`), reached through fsspec
(s3fs, gcsfs: `pip install benchbill[s3]` or `[gcs]`) and read by DuckDB through the same filesystem
(`register_filesystem`: DuckDB's httpfs extension is not needed, nor downloaded).

Object stores have no atomic rename, but a PUT is atomic: an object is there whole or not at all. So a stored
partition is written under its final name with its manifest LAST (a folder without its manifest is absent), and
records named by their content are written once (a name already there is never written again)."""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import duckdb

from assets.core.errors import IngestError, NetworkError

T = TypeVar("T")
# An unreachable store is tried this many times, waiting RETRY_WAIT_S[i] after the i-th failure (each try bounded by
# the filesystem's own retries: about 25 s in all for s3fs with a port where nothing listens).
STORE_ATTEMPTS = 3
RETRY_WAIT_S = (1.0, 2.0)
# Exceptions (by class name, anywhere in the chain) that say the store's endpoint was not reached.
_UNREACHED = {
    "EndpointConnectionError",
    "ConnectTimeoutError",
    "ClientConnectorError",
    "ClientConnectionError",
    "ServerDisconnectedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "TimeoutError",
}


class RunStoreUnreachable(NetworkError):
    """The run store's endpoint did not answer after the retries: one message naming the store and the endpoint."""


def _unreached(exc: BaseException) -> str | None:
    """The first line of the error in `exc`'s chain that says the endpoint was not reached (None: another error)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (ConnectionError, TimeoutError)) or any(
            c.__name__ in _UNREACHED for c in type(current).__mro__
        ):
            return str(current).splitlines()[0] if str(current) else type(current).__name__
        current = current.__cause__ or current.__context__
    return None


# The protocols a run store may be on, and the extra that installs each one's filesystem. `memory` is fsspec's
# in-process store (tests: the same code with no server).
PROTOCOLS = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs", "memory": None}
_URL = re.compile(r"^([a-z][a-z0-9+.-]*)://(.+)$")
# A URL a view reads (observed.requests over remote records): a literal in a reader call.
_READ_URL = re.compile(r"read_(?:csv|parquet|ndjson|json)\w*\(\s*'([a-z][a-z0-9+.-]*)://")


def storage_options(options_json: str, where: str = "BENCHBILL_RUN_STORE_OPTIONS") -> dict[str, Any]:
    """fsspec storage options from their JSON text (empty: none); an error names the setting and what is expected."""
    if not options_json.strip():
        return {}
    try:
        options = json.loads(options_json)
    except ValueError as exc:
        raise IngestError(f'{where}: not JSON ({exc}); expected an object, e.g. {{"endpoint_url": "..."}}') from exc
    if not isinstance(options, dict):
        raise IngestError(f"{where}: expected a JSON object of fsspec storage options, got {type(options).__name__}")
    return options


def filesystem(protocol: str, options: dict[str, Any]) -> Any:
    """The fsspec filesystem of `protocol` with `options`; an error says which extra installs it."""
    import fsspec

    try:
        # No listings cache: other processes (each partition's step, a pod) add and remove objects meanwhile.
        return fsspec.filesystem(protocol, **{"use_listings_cache": False, **options})
    except ImportError as exc:
        extra = PROTOCOLS.get(protocol)
        raise IngestError(
            f"run store {protocol}://: its filesystem is not installed ({exc}); install benchbill[{extra}]"
        ) from exc


@dataclass(frozen=True)
class ObjectStore:
    """A folder of an object store: `url` (protocol://bucket/prefix) and the fsspec storage options (JSON text:
    endpoint_url, ...; credentials come from the provider's usual environment, e.g. AWS_ACCESS_KEY_ID or
    GOOGLE_APPLICATION_CREDENTIALS)."""

    url: str
    options_json: str = ""

    def __post_init__(self) -> None:
        found = _URL.match(self.url.strip())
        if found is None or found.group(1) not in PROTOCOLS:
            raise IngestError(
                f"BENCHBILL_RUN_STORE={self.url!r}: expected s3://bucket/prefix or gs://bucket/prefix "
                "(or nothing: the warehouse folder)"
            )

    @property
    def protocol(self) -> str:
        return self.url.split("://", 1)[0]

    @property
    def root(self) -> str:
        """The store's path as its filesystem names it (no protocol, no trailing slash)."""
        return self.url.split("://", 1)[1].rstrip("/")

    @functools.cached_property
    def fs(self) -> Any:
        return filesystem(self.protocol, storage_options(self.options_json))

    def path(self, *parts: str) -> str:
        """A path below the store, as its filesystem names it."""
        return "/".join([self.root, *parts])

    def url_of(self, *parts: str) -> str:
        """A path below the store as a URL (what DuckDB reads through the registered filesystem)."""
        return f"{self.protocol}://{self.path(*parts)}"

    @property
    def endpoint(self) -> str:
        """Where the store is reached: its endpoint_url, else the provider's own endpoint."""
        options = storage_options(self.options_json)
        return str(options.get("endpoint_url") or options.get("client_kwargs", {}).get("endpoint_url") or "")

    def _call(self, fn: Callable[[], T]) -> T:
        """`fn` on the store, tried again while its endpoint is not reached (STORE_ATTEMPTS, bounded waits); then
        one RunStoreUnreachable naming the store and the endpoint, no chained tracebacks."""
        started = time.monotonic()
        for attempt in range(STORE_ATTEMPTS):
            try:
                return fn()
            except FileNotFoundError:
                raise
            except Exception as exc:  # noqa: BLE001 - sorted below: only an unreached endpoint is retried
                problem = _unreached(exc)
                if problem is None:
                    raise
            if attempt < STORE_ATTEMPTS - 1:
                time.sleep(RETRY_WAIT_S[min(attempt, len(RETRY_WAIT_S) - 1)])
        where = f" at {self.endpoint}" if self.endpoint else ""
        raise RunStoreUnreachable(
            f"the run store {self.url} (BENCHBILL_RUN_STORE) cannot be reached{where}: {problem} (tried "
            f"{STORE_ATTEMPTS} times in {time.monotonic() - started:.0f} s); check that the store "
            "is up and that BENCHBILL_RUN_STORE_OPTIONS names its endpoint_url, then run again"
        )

    def reachable(self) -> None:
        """Raise RunStoreUnreachable when the store's endpoint does not answer (a listing of its folder)."""
        try:
            self._call(lambda: self.fs.ls(self.root, refresh=True))
        except FileNotFoundError:  # reached: nothing stored there yet
            return

    def read_text(self, *parts: str) -> str | None:
        """An object's text, or None when it is not there."""
        try:
            return self._call(lambda: self.fs.cat_file(self.path(*parts))).decode()
        except FileNotFoundError:
            return None

    def read_bytes(self, *parts: str) -> bytes:
        try:
            return self._call(lambda: self.fs.cat_file(self.path(*parts)))
        except FileNotFoundError:
            raise IngestError(f"{self.url_of(*parts)}: missing from the run store") from None

    def size(self, *parts: str) -> int | None:
        """An object's size in bytes, or None when it is not there."""
        try:
            return int(self._call(lambda: self.fs.info(self.path(*parts)))["size"])
        except FileNotFoundError:
            return None

    def read_range(self, start: int, end: int, *parts: str) -> bytes:
        """The bytes [start, end) of an object."""
        return self._call(lambda: self.fs.cat_file(self.path(*parts), start=start, end=end))

    def write_text(self, text: str, *parts: str) -> None:
        self._call(lambda: self.fs.pipe_file(self.path(*parts), text.encode()))

    def exists(self, *parts: str) -> bool:
        return bool(self._call(lambda: self.fs.exists(self.path(*parts))))

    def put_file(self, local: str, *parts: str) -> None:
        self._call(lambda: self.fs.put_file(local, self.path(*parts)))

    def folders(self, *parts: str) -> list[str]:
        """The names of the folders (common prefixes) right below a path (none when it is not there)."""
        try:
            found = self._call(lambda: self.fs.ls(self.path(*parts), detail=True, refresh=True))
        except FileNotFoundError:
            return []
        return sorted(entry["name"].rstrip("/").rsplit("/", 1)[-1] for entry in found if entry["type"] == "directory")

    def remove(self, *parts: str) -> None:
        """A folder and everything below it (nothing when it is not there)."""
        try:
            self._call(lambda: self.fs.rm(self.path(*parts), recursive=True))
        except FileNotFoundError:
            return

    def register(self, conn: duckdb.DuckDBPyConnection) -> None:
        """DuckDB reads the store's URLs through its fsspec filesystem on `conn` (per connection)."""
        register_filesystem(conn, self.fs)


def register_filesystem(conn: duckdb.DuckDBPyConnection, fs: Any) -> None:
    if not conn.filesystem_is_registered(fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]):
        conn.register_filesystem(fs)


def register_for_views(conn: duckdb.DuckDBPyConnection, view_sql: Iterable[str], options_json: str = "") -> list[str]:
    """Register on `conn` the filesystem of every object-store protocol the views read (observed.requests over a
    remote run store), with `options_json`; returns the protocols. A reader of the serving file needs this (or
    DuckDB's httpfs extension, with the same credentials) before it reads those views."""
    protocols = sorted({p for sql in view_sql for p in _READ_URL.findall(sql or "") if p in PROTOCOLS})
    for protocol in protocols:
        register_filesystem(conn, filesystem(protocol, storage_options(options_json)))
    return protocols

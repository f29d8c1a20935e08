"""Reading input bytes from a local path or an http(s) URL, with provenance.

URLs are fetched only from allowed hosts (a redirect to another host is refused), with bounded
retries and backoff on 5xx, 429 and connection faults, a size limit, and a check that the body
is as long as the server said. Local folders are walked recursively in sorted order."""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Callable
from urllib.parse import urljoin, urlparse

import requests

from assets.core.errors import IngestError, NetworkError
from assets.inputs.files import Fetched, sha256_bytes

MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024
TIMEOUT_S = 60.0  # per connect and per read of a chunk
ATTEMPTS = 4  # retries on 5xx, 429, timeouts, resets and truncated bodies, then a clear failure
BACKOFF_S = 1.0  # waits 1, 2, 4 s between attempts (or what Retry-After asks, up to MAX_RETRY_AFTER_S)
MAX_RETRY_AFTER_S = 60.0
PROGRESS_STEP_BYTES = 8 * 1024 * 1024
LOCAL_COPY_HINT = "or download it yourself and pass the file with --mlperf FILE"
RETRYABLE_STATUS = {429, 500, 502, 503, 504}


def is_url(location: str) -> bool:
    return urlparse(str(location)).scheme in ("http", "https")


def commit_in_url(url: str) -> str | None:
    """A 40-hex git commit named in a raw.githubusercontent-style URL, if any."""
    match = re.search(r"/([0-9a-f]{40})(/|$)", url)
    return match.group(1) if match else None


def _check_host(url: str, allowed_hosts: list[str], origin: str) -> None:
    host = urlparse(url).hostname or ""
    if host not in allowed_hosts:
        raise IngestError(
            f"{origin}: refusing to fetch {url}: host {host!r} is not in allowed_hosts {sorted(allowed_hosts)} "
            "(add it to the sources file if it is a real publication place)"
        )


def _pause(seconds: float) -> None:
    time.sleep(seconds)


def retry_after_s(value: str | None) -> float | None:
    """Seconds a 429/503 `Retry-After` asks for (delta-seconds or an HTTP date), capped; None if absent."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return min(float(value), MAX_RETRY_AFTER_S)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return min(max(0.0, when.timestamp() - time.time()), MAX_RETRY_AFTER_S)


def fetch_url(
    url: str,
    allowed_hosts: list[str],
    *,
    timeout_s: float | None = None,
    attempts: int | None = None,
    backoff_s: float | None = None,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
    session: requests.Session | None = None,
    progress: Callable[[str], None] | None = None,
    sleep: Callable[[float], None] | None = None,
    progress_step_bytes: int = PROGRESS_STEP_BYTES,
) -> Fetched:
    """GET `url` with bounded retries; raise IngestError naming the URL, the last problem and what
    to do. A long download reports its progress every `progress_step_bytes`. Unset settings take
    the module's TIMEOUT_S, ATTEMPTS and BACKOFF_S."""
    _check_host(url, allowed_hosts, url)
    timeout_s = TIMEOUT_S if timeout_s is None else timeout_s
    attempts = ATTEMPTS if attempts is None else attempts
    backoff_s = BACKOFF_S if backoff_s is None else backoff_s
    sleep = sleep or _pause
    http = session or requests.Session()
    last_problem = "no attempt made"
    for attempt in range(1, attempts + 1):
        target = url
        wait = backoff_s * 2 ** (attempt - 1)
        try:
            for _hop in range(5):
                response = http.get(target, timeout=timeout_s, stream=True, allow_redirects=False)
                if response.is_redirect:
                    target = urljoin(target, response.headers.get("Location", ""))
                    _check_host(target, allowed_hosts, url)
                    response.close()
                    continue
                break
            else:
                raise IngestError(f"{url}: more than 5 redirects")
            if response.status_code in RETRYABLE_STATUS:
                last_problem = f"HTTP {response.status_code}"
                asked = retry_after_s(response.headers.get("Retry-After"))
                if asked is not None:
                    wait = asked
                response.close()
                raise _Retry()
            if response.status_code != 200:
                raise IngestError(
                    f"{url}: HTTP {response.status_code} (expected 200 with the round table); "
                    f"check the URL in the sources file or --mlperf, {LOCAL_COPY_HINT}"
                )
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise IngestError(
                    f"{url}: declares {declared} bytes, above the {max_bytes}-byte limit; {LOCAL_COPY_HINT}"
                )
            chunks, received, next_report = [], 0, progress_step_bytes
            size = f" of {int(declared) / 1e6:,.1f}" if declared and declared.isdigit() else ""
            for chunk in response.iter_content(chunk_size=1 << 20):
                received += len(chunk)
                if received > max_bytes:
                    raise IngestError(f"{url}: body exceeds the {max_bytes}-byte limit; {LOCAL_COPY_HINT}")
                chunks.append(chunk)
                if progress and received >= next_report:
                    progress(f"downloading {url}: {received / 1e6:,.1f}{size} MB")
                    next_report = received + progress_step_bytes
            data = b"".join(chunks)
            if declared and declared.isdigit() and int(declared) != len(data):
                last_problem = f"truncated body ({len(data)} of {declared} bytes)"
                raise _Retry()
            if progress:
                progress(f"fetched {url} ({len(data):,} bytes)")
            return Fetched(name=url, data=data, sha256=sha256_bytes(data), commit=commit_in_url(url))
        except _Retry:
            pass
        except requests.exceptions.ChunkedEncodingError as exc:
            last_problem = f"truncated body (connection broken: {exc})"
        except (requests.ConnectionError, requests.Timeout) as exc:
            last_problem = f"{type(exc).__name__}: {exc}"
        except requests.RequestException as exc:  # an invalid URL or the like: retrying will not help
            raise IngestError(f"{url}: cannot fetch ({type(exc).__name__}: {exc}); check the URL") from None
        if attempt < attempts:
            if progress:
                progress(f"{url}: {last_problem}; retry {attempt}/{attempts - 1} in {wait:.1f} s")
            sleep(wait)
    raise NetworkError(
        f"{url}: failed after {attempts} attempts; last problem: {last_problem}. Check the "
        f"network and that the host answers, then run again, {LOCAL_COPY_HINT}"
    )


class _Retry(Exception):
    pass

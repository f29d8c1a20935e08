"""observed.stored_requests: per-request records kept in the warehouse (parsed from JSON dumps)."""

from schemas.observed.requests import Requests


class StoredRequests(Requests):
    """One request parsed from a JSON dump (vLLM, SGLang, GuideLLM, LLMPerf, inference-perf) or from a file
    that is not on disk, kept in the warehouse; observed.requests shows these with the records it reads
    in place from the per-request files."""

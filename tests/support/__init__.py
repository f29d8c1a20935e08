"""Helpers the test tiers share: where the real data is, small end-to-end cases, hostile inputs, a loopback
HTTP server, synthetic dumps. Nothing here is a test."""

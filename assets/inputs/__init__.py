"""Shared input handling: bytes from local files and URLs with their checksums; text, JSON, JSON
lines and YAML decoded safely; archives read in memory."""

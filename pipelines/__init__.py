"""Dagster wiring for benchbill: definitions, resources, jobs, schedule, sensor and the CLI."""

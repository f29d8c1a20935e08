-- analytics.source_files: every file or URL the pipeline looked at, with its checksum, the
-- format recognised and whether it was read, skipped or quarantined.
--
-- Columns described on: audit.source_files
SELECT *
FROM audit.source_files
ORDER BY table_name, source

-- small_sources (a query of the request pass, assets/request_records/request_pass.py): the sources holding a repeat of a
-- small load level (`small_levels`): only they are read again.
SELECT DISTINCT key_source_id FROM small_levels

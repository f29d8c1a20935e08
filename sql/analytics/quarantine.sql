-- analytics.quarantine: every input row or file that was rejected, with the table it was meant
-- for, where it came from and why. Nothing is dropped silently.
--
-- Columns described on: audit.quarantine
SELECT *
FROM audit.quarantine
ORDER BY table_name, source, location

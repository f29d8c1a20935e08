-- Which results a shortlist number came from: for each config of a profile, the MLPerf results
-- behind the reference (round, submitter, system, file, record), the load points of our run
-- that bound the delivered band (dump file), the prior of projected configs, and the prices.
--
-- param profile: the profile's name
-- param accelerator (optional): only configs whose accelerator id contains this text
-- param run (optional): only our run with this label
-- values profile: one of analytics.profiles.profile
-- values accelerator: part of analytics.shortlist_sources.accelerator_id
-- values run: one of analytics.shortlist_sources.run_label
SELECT
    accelerator_id,
    evidence,
    run_label,
    number,
    value,
    unit,
    number_evidence,
    round,
    submitter,
    system,
    source,
    location,
    source_sha256
FROM analytics.shortlist_sources
WHERE profile = $profile
  AND ($accelerator IS NULL OR accelerator_id ILIKE '%' || $accelerator || '%')
  AND ($run IS NULL OR run_label = $run)

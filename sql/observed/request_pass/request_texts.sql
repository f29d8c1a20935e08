-- observed.request_texts (inside the request pass, assets/request_records/request_pass.py): the prompt and response texts
-- (`text_parts`) of the rows kept (`text_rows`: the rows of the sources that have texts, `valid`), placed in their
-- run's sweep by `request_keys` as observed.requests places them.
SELECT k.run_id, k.load_index, k.repeat_index, r.ordinal - k.first_ordinal AS request_index,
       t.prompt_text, t.response_text, k.source
FROM text_rows AS r
JOIN text_parts AS t USING (source_id, ordinal)
JOIN request_keys AS k
    ON k.source_id = r.source_id
   AND k.file_offered_rate_per_s IS NOT DISTINCT FROM r.offered_rate_per_s
   AND k.file_concurrency IS NOT DISTINCT FROM r.concurrency
WHERE r.valid
ORDER BY 1, 2, 3, 4

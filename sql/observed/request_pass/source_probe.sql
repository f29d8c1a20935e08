-- source_probe (a query of the request pass, assets/request_records/request_pass.py): every column of one source's rows
-- read (`probe_rows`: that source alone), to learn whether DuckDB can read it when it could not read them all.
SELECT count(*), min(phase), min(status), min(start_s), min(input_tokens), min(output_tokens), min(ttft_ms),
       min(e2e_ms), min(level_nominal)
FROM probe_rows

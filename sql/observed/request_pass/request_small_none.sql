-- request_small (a temporary table of the request pass, assets/request_records/request_pass.py) when no load level is
-- small: empty, with the columns request_small.sql gives.
CREATE TEMP TABLE request_small (
    run_id VARCHAR, load_index BIGINT, ttft_sorted DOUBLE[], tpot_sorted DOUBLE[], e2e_sorted DOUBLE[]
)

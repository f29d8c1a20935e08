-- pooled_sizes (a query of the request pass, assets/request_records/request_pass.py): the numbers of ok requests, from 1
-- to $exact_up_to, of the pooled measures in `request_pooled`: the sizes whose exact order-statistic ranks
-- (`order_ranks`, assets/request_records/order_stats.py) request_percentiles.sql needs.
SELECT DISTINCT requests_used FROM request_pooled WHERE requests_used BETWEEN 1 AND $exact_up_to

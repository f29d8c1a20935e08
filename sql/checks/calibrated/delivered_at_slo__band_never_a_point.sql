-- A delivered band is never a point and carries a held-out error; a lower bound has its low end; what cannot be
-- done says why; only a fitted engine model bills.
--
-- blocking: true
-- Rows whose band is missing, a point or upside down, without its held-out error, without a reason where nothing
-- was delivered, or billing on a model that is not fitted.
SELECT profile, config_key, status, config_status, bills, delivered_requests_per_s_low,
       delivered_requests_per_s_high, band_rel_error, status_reason
FROM calibrated.delivered_at_slo
WHERE (status = 'delivered' AND (delivered_requests_per_s_low IS NULL OR delivered_requests_per_s_high IS NULL
                                 OR delivered_requests_per_s_low >= delivered_requests_per_s_high))
   OR (status = 'lower_bound' AND delivered_requests_per_s_low IS NULL)
   OR (status IN ('delivered', 'lower_bound') AND band_rel_error IS NULL)
   OR (status NOT IN ('delivered', 'lower_bound') AND status_reason IS NULL)
   OR (bills AND config_status <> 'fitted')

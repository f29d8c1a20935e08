-- analytics.calibrated_delivered: per profile x config of its model, the rate our traffic is delivered at within
-- the profile's SLO according to the config's calibrated engine model, as a band carrying the model's held-out
-- error; what cannot be done says why (status, status_reason); bills says whether the band may bill.
--
-- Columns described on: calibrated.delivered_at_slo
SELECT
    profile, config_key, config_label, status, status_reason, bills, config_status, model_id, model_key,
    accelerator_id,
    accelerator_count, precision, runtime, runtime_version, run_labels, slo_text, binding_measure,
    delivered_requests_per_s_low, delivered_requests_per_s_high, band_rel_error, band_basis,
    heldout_rel_error_median, heldout_rel_error_worst, saturation_requests_per_s, traffic_requests_per_s,
    traffic_interarrival_cv, input_tokens_mean, output_tokens_mean, traffic_basis, traffic_sample
FROM calibrated.delivered_at_slo
ORDER BY profile, bills DESC, delivered_requests_per_s_high DESC NULLS LAST, config_label

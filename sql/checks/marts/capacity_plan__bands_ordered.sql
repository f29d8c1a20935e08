-- Every band of the capacity plan has its low end at or below its high end (replicas, monthly bill static and
-- autoscaled, utilisation, effective cost per request, saving), and autoscaling never costs more than the static
-- plan at the same end.
--
-- blocking: true
-- Capacity bands that are upside down, or an autoscaled bill above the static one.
SELECT profile, config_key, price_class, price_provider, replicas_low, replicas_high, monthly_usd_low,
       monthly_usd_high, autoscaled_monthly_usd_low, autoscaled_monthly_usd_high
FROM marts.capacity_plan
WHERE replicas_low > replicas_high
   OR monthly_usd_low > monthly_usd_high
   OR utilisation_low > utilisation_high
   OR effective_cost_per_request_usd_low > effective_cost_per_request_usd_high
   OR autoscaled_monthly_usd_low > autoscaled_monthly_usd_high
   OR monthly_saving_usd_low > monthly_saving_usd_high
   OR autoscaled_monthly_usd_low > monthly_usd_low * (1 + 1e-9) + 1e-9
      AND min_replicas <= replicas_low
   OR autoscaled_monthly_usd_high > monthly_usd_high * (1 + 1e-9) + 1e-9
      AND min_replicas <= replicas_high

-- analytics.cost_sensitivity: what the token mix and the bursts cost, per profile x config x variant x price: the
-- cost per request and per 1M output tokens at our mix, with prompts or answers halved and doubled, and at Poisson
-- arrivals (the monthly bill our bursts add), each re-derived by the config's calibrated engine model and carrying
-- its held-out error; the prefill share of accelerator time; what cannot be priced says why.
--
-- Columns described on: calibrated.cost_sensitivity
SELECT *
FROM calibrated.cost_sensitivity
ORDER BY profile, config_key, price_class NULLS LAST, price_provider,
         list_position(['our_mix', 'prompts_x0.5', 'prompts_x2', 'answers_x0.5', 'answers_x2', 'poisson_arrivals'],
                       variant)

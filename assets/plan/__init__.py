"""Measurement plans: what to measure next per profile, the prediction made before measuring, the files a team's
load-test tools run, and the score of a prediction once its measurements come back. Plain library code (no
Dagster)."""

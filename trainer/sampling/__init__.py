"""Which groups a step trains on and how their rewards are shaped (the ``[sampling]`` table,
`SamplingConfig`): dynamic sampling, the pass-rate filter, the curriculum, overlong shaping."""

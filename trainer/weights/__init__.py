"""The learner's weights to the rollout workers: one seam (`WeightChannel`: publish / load by
version) and its channels (files, Ray's object store, a collective broadcast)."""

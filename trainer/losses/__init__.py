"""The learning math as small pure functions: group advantages, the policy losses by name
(``loss_type``), k3 KL, importance-sampling corrections."""

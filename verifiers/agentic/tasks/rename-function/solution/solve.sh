#!/bin/bash
cd /app/shop
sed -i -E 's/\bcalc_total\b/compute_total/g' __init__.py pricing.py cart.py checkout.py

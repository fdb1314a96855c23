#!/bin/bash
cat > /work/top_customers.sql <<'EOF'
SELECT c.name, SUM(o.amount_cents) AS total_cents
FROM customers AS c JOIN orders AS o ON o.customer_id = c.id
WHERE o.status = 'paid'
GROUP BY c.id
ORDER BY total_cents DESC, c.name ASC
LIMIT 3;
EOF

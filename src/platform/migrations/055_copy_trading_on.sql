-- Copy trading is offered by default; the flag stays, so an operator can still switch it off. A flag an operator
-- has already set keeps its value.
UPDATE feature_flags SET enabled = true WHERE key = 'copyTrading' AND updated_by IS NULL;

-- The chance each option showed when its event was settled (in basis points), kept because settling pays out the
-- house maker's inventory, which the chances of an exclusive event were read from: a settled market shows the
-- chances it settled at, never its opening odds. Markets settled before keep NULL and show their last prices.
ALTER TABLE options ADD COLUMN closing_probability_bps integer
  CHECK (closing_probability_bps BETWEEN 0 AND 10000);

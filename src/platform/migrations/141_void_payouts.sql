-- What a YES share of each option pays at settlement (a NO share pays the rest of 100), set when the option is
-- resolved: 100 or 0, or for VOID half for an independent option and an equal share of 100 for each option of an
-- exclusive event (so a complete set still pays 100: exchange/settlement.ts, voidPayouts). The options resolved
-- before were paid, or are to be paid, 50 a share of either side for VOID.
ALTER TABLE options ADD COLUMN yes_payout_cents integer CHECK (yes_payout_cents BETWEEN 0 AND 100);
UPDATE options SET yes_payout_cents = CASE resolution WHEN 'YES' THEN 100 WHEN 'NO' THEN 0 ELSE 50 END
WHERE resolution IS NOT NULL;

import { useMemo } from 'react';
import type { OptionDetail, Portfolio } from '../../api/types';
import { useTradesHere } from '../../components/YourActivity';
import { useApi } from '../../lib/hooks';
import { markPositions, type ShownStatus } from '../../lib/market';

/**
 * The signed-in trader's stake in this market: the positions held here (marked at its prices), whether they
 * ever traded it (once resolved: former holders may dispute too), and once settled, what it paid them.
 */
export function useHoldingsHere(
  signedIn: boolean,
  eventSlug: string,
  options: OptionDetail[],
  status: ShownStatus,
  positions: Portfolio | undefined,
) {
  const tradesHere = useTradesHere(eventSlug, signedIn && status === 'resolved');
  const settlements = useApi(signedIn && status === 'settled' ? '/api/me/settlements' : null, {
    params: { query: { eventSlug, limit: 200 } },
  });
  const held = useMemo(
    () =>
      markPositions(
        (positions?.data ?? []).filter((p) => p.eventSlug === eventSlug && p.quantity > 0),
        options,
      ),
    [positions, eventSlug, options],
  );
  // A trade here means a position held here, now or before.
  const hasTraded = (tradesHere.data?.data.length ?? 0) > 0;
  return { held, hasTraded, settlements };
}

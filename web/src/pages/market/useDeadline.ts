import { useEffect, useState } from 'react';

/** setTimeout's longest delay; a market closing later than that is simply not timed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Re-renders when `iso` passes, so a market's close shows at its closing time, not when a read comes. */
export function useDeadline(iso: string | undefined): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!iso) return;
    const wait = Date.parse(iso) - Date.now();
    if (wait <= 0 || wait > MAX_TIMER_MS) return;
    const timer = setTimeout(() => setNow(Date.now()), wait + 50);
    return () => clearTimeout(timer);
  }, [iso]);
  return now;
}

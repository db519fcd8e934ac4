import { useCallback, useEffect, useRef } from 'react';

/**
 * Runs `action` a moment after it is first asked for (one run for a burst), then at most once every `gapMs`
 * however often it is asked.
 */
export function useThrottled(action: () => void, burstMs: number, gapMs: number): () => void {
  const latest = useRef(action);
  latest.current = action;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const lastRun = useRef(0);
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    if (timer.current !== undefined) return;
    const wait = Math.max(burstMs, lastRun.current + gapMs - Date.now());
    timer.current = setTimeout(() => {
      timer.current = undefined;
      lastRun.current = Date.now();
      latest.current();
    }, wait);
  }, [burstMs, gapMs]);
}

import { useCallback, useRef, useState } from 'react';
import type { MarketDetail, OptionDetail } from '../../api/types';
import {
  type CandleInterval,
  type ChartView,
  candlesFrom,
  defaultChartView,
  defaultInterval,
} from '../../lib/candles';

/**
 * Line or candles, and the candles' interval: the trader's choice while on this market, else the chart the picked
 * option opens on, decided once for it (a trade arriving never switches the chart under the reader). The candles
 * of each option and interval are read from a start fixed for the visit, so the cached ones are the ones shown.
 */
export function useChartChoice(
  slug: string,
  market: MarketDetail | undefined,
  selected: OptionDetail | undefined,
) {
  const [chosen, setChosen] = useState<{ slug: string; view?: ChartView; interval?: CandleInterval }>({
    slug,
  });
  const defaults = useRef(new Map<string, { view: ChartView; interval: CandleInterval }>());
  const starts = useRef(new Map<string, string>());
  const mine = chosen.slug === slug ? chosen : { slug };
  let opening = selected ? defaults.current.get(selected.id) : undefined;
  if (market && selected && !opening) {
    const now = Date.now();
    opening = {
      view: defaultChartView(market, selected, '1d', now),
      interval: defaultInterval(selected, now),
    };
    defaults.current.set(selected.id, opening);
  }
  const candlesFromOf = useCallback((optionId: string, interval: CandleInterval) => {
    const key = `${optionId}:${interval}`;
    const start = starts.current.get(key) ?? candlesFrom(interval, Date.now());
    starts.current.set(key, start);
    return start;
  }, []);
  return {
    view: mine.view ?? opening?.view ?? 'line',
    interval: mine.interval ?? opening?.interval ?? '1h',
    setView: (view: ChartView) => setChosen({ ...mine, view }),
    setInterval: (interval: CandleInterval) => setChosen({ ...mine, interval }),
    candlesFrom: candlesFromOf,
  };
}

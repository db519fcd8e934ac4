import { lazy, Suspense } from 'react';
import { Loading } from '../../components/Status';
import type { MarketPageState } from './useMarketPage';

// The chart library is the biggest part of the market page: its own chunk, fetched with the first market shown.
const MarketChart = lazy(() =>
  import('../../components/MarketChart').then((module) => ({ default: module.MarketChart })),
);

/** The price chart of the selected option (every option's, in an exclusive event), line or candles. */
export function MarketChartCard({ page, exclusive }: { page: MarketPageState; exclusive: boolean }) {
  const { chart } = page;
  return (
    <section className="card area-chart">
      <Suspense fallback={<Loading label="Loading the chart…" />}>
        <MarketChart
          options={page.options}
          exclusive={exclusive}
          selected={page.selected}
          view={chart.view}
          onView={chart.setView}
          range={page.range}
          onRange={page.setRange}
          interval={chart.interval}
          onInterval={chart.setInterval}
          candlesFrom={chart.candlesFrom}
        />
      </Suspense>
    </section>
  );
}

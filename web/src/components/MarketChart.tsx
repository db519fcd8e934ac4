import type { OptionDetail } from '../api/types';
import type { CandleInterval, ChartView } from '../lib/candles';
import { CandleChart } from './CandleChart';
import { ChipChoice } from './ChartParts';
import { PriceChart, type Range } from './PriceChart';

const VIEWS: { value: ChartView; label: string }[] = [
  { value: 'line', label: 'Line' },
  { value: 'candles', label: 'Candles' },
];

/**
 * The market page's chart: every option's line over a range, or the candles of the option picked in the table,
 * one switch between them. The chart library is its own chunk, loaded with the first market page.
 */
export function MarketChart({
  options,
  exclusive,
  selected,
  view,
  onView,
  range,
  onRange,
  interval,
  onInterval,
  candlesFrom,
}: {
  options: OptionDetail[];
  exclusive: boolean;
  selected: OptionDetail | undefined;
  view: ChartView;
  onView: (view: ChartView) => void;
  range: Range;
  onRange: (range: Range) => void;
  interval: CandleInterval;
  onInterval: (interval: CandleInterval) => void;
  candlesFrom: (optionId: string, interval: CandleInterval) => string;
}) {
  const controls = <ChipChoice legend="Chart type" choices={VIEWS} value={view} onChange={onView} />;
  if (view === 'candles' && selected) {
    return (
      <CandleChart
        option={selected}
        interval={interval}
        onInterval={onInterval}
        from={candlesFrom(selected.id, interval)}
        controls={controls}
        several={options.length > 1}
      />
    );
  }
  return (
    <PriceChart options={options} exclusive={exclusive} range={range} onRange={onRange} controls={controls} />
  );
}

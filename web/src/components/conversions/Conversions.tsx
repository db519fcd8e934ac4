import { useId } from 'react';
import type { MarketDetail, Position } from '../../api/types';
import { ConversionForm } from './ConversionForm';
import { ConversionHistory } from './ConversionHistory';
import { useConversionPanel } from './useConversionPanel';

/**
 * The conversions of an exclusive event, offered only as far as the holder can use them: No shares to convert
 * (when some are held and free), a whole set of Yes shares to merge (when held), and a split (with at least a
 * credit). Each shows what it gives and gets before it is confirmed, and what it did after. Shares to convert or
 * merge open the panel; a split alone waits to be asked for.
 */
export function Conversions({ market, positions }: { market: MarketDetail; positions: Position[] }) {
  const ids = useId();
  const panel = useConversionPanel(market, positions);
  const { kind } = panel.draft;
  if (!kind) return null;
  return (
    <section className="card conversions" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Conversions</h2>
      <p className="muted small">
        One option wins, so a No share of an option pays what a Yes share of every other option pays together,
        and a Yes share of every option pays 100¢. Converting between them costs nothing.
      </p>
      {panel.open ? (
        <ConversionForm ids={ids} kind={kind} panel={panel} optionCount={market.options.length} />
      ) : (
        <button type="button" className="button small ghost" aria-expanded="false" onClick={panel.openPanel}>
          Split credits into a Yes of every option
        </button>
      )}
      {panel.open ? (
        <button
          type="button"
          className="link-button small"
          aria-expanded={panel.history}
          onClick={panel.toggleHistory}
        >
          {panel.history ? 'Hide your conversions here' : 'Show your conversions here'}
        </button>
      ) : null}
      {panel.open && panel.history ? (
        <ConversionHistory eventSlug={market.slug} optionCount={market.options.length} />
      ) : null}
    </section>
  );
}

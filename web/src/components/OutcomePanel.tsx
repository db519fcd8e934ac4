import type { ReactNode } from 'react';
import type { MarketDetail, Position } from '../api/types';
import { formatCredits, formatDate, formatNumber } from '../lib/format';
import { payoutCents } from '../lib/market';

function outcomeWords(resolution: 'YES' | 'NO' | 'VOID'): string {
  if (resolution === 'VOID') return 'Void: each share pays 50¢';
  return resolution === 'YES' ? 'Yes' : 'No';
}

/** In place of the ticket once trading has stopped: what happened, and what the viewer's shares pay. */
export function OutcomePanel({
  market,
  held,
  children,
}: {
  market: MarketDetail;
  held: Position[];
  children?: ReactNode;
}) {
  const resolved = market.status === 'resolved' || market.status === 'settled';
  return (
    <section className="card outcome" aria-labelledby="outcome-heading">
      <h2 id="outcome-heading">{resolved ? 'Outcome' : 'Trading closed'}</h2>
      {resolved ? (
        <ul className="plain outcome-list">
          {market.options.map((option) => (
            <li key={option.id}>
              <strong>{option.label}</strong>:{' '}
              <span data-testid="outcome">
                {option.resolution ? outcomeWords(option.resolution) : 'not resolved'}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p>
          Trading stopped {formatDate(market.closedAt)}. The result is announced when the market resolves.
        </p>
      )}
      {market.status === 'resolved' ? (
        <p className="muted small">
          Resolved {formatDate(market.resolvedAt)}. Winnings are paid when the market settles, after the
          dispute window ends {formatDate(market.disputeWindowEndsAt)}.
        </p>
      ) : null}
      {market.status === 'settled' ? (
        <p className="muted small">Settled {formatDate(market.settledAt)}: winnings have been paid.</p>
      ) : null}
      {held.length > 0 && resolved ? (
        <ul className="plain payouts" aria-label="Your payout">
          {held.map((position) => {
            const option = market.options.find((candidate) => candidate.id === position.optionId);
            const each = option?.resolution ? payoutCents(position.side, option.resolution) : null;
            return (
              <li key={position.id} data-testid="payout">
                {formatNumber(position.quantity)} {position.side === 'YES' ? 'Yes' : 'No'} ·{' '}
                {position.optionLabel}:{' '}
                {each === null ? 'pending' : `pays ${formatCredits(each * position.quantity)}`}
              </li>
            );
          })}
        </ul>
      ) : null}
      {children}
    </section>
  );
}

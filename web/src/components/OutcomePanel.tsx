import type { ReactNode } from 'react';
import type { MarketDetail, Position } from '../api/types';
import { formatCredits, formatDate, formatNumber, pnlClass } from '../lib/format';
import type { GetAnswer } from '../lib/hooks';
import { payoutCents, type ShownStatus } from '../lib/market';
import { ErrorMessage, Loading } from './Status';

type Settlement = GetAnswer<'/api/me/settlements'>['data'][number];

function outcomeWords(resolution: 'YES' | 'NO' | 'VOID'): string {
  if (resolution === 'VOID') return 'Void: each share pays 50¢';
  return resolution === 'YES' ? 'Yes' : 'No';
}

const sideName = (side: 'YES' | 'NO') => (side === 'YES' ? 'Yes' : 'No');

/** What settlement paid the viewer in this market, position by position, and in all. */
function Paid({ settlements }: { settlements: Settlement[] }) {
  if (settlements.length === 0) {
    return <p className="muted small">You held no shares here when it settled.</p>;
  }
  const total = settlements.reduce((sum, item) => sum + item.payoutCents, 0);
  const pnl = settlements.reduce((sum, item) => sum + item.pnlCents, 0);
  return (
    <div className="paid" data-testid="settlement">
      <p>
        <strong data-testid="paid-total">You were paid {formatCredits(total)}</strong>{' '}
        <span className={pnlClass(pnl)}>
          ({pnl >= 0 ? 'a profit of' : 'a loss of'} {formatCredits(Math.abs(pnl))} on what the shares cost)
        </span>
      </p>
      <ul className="plain payouts" aria-label="What each position paid">
        {settlements.map((item) => (
          <li key={item.id}>
            {formatNumber(item.quantity)} {sideName(item.side)} · {item.optionLabel}:{' '}
            {formatCredits(item.payoutCents)}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** An exclusive event's result in a line: the one option that won, or none. */
function WinnerLine({ options }: { options: MarketDetail['options'] }) {
  const winner = options.find((option) => option.resolution === 'YES');
  return (
    <p className="winner" data-testid="winner">
      {winner
        ? `${winner.label} won: its Yes shares pay 100¢, and the No shares of every other option too.`
        : 'No winner: every option is void, and every share pays 50¢.'}
    </p>
  );
}

/** In place of the ticket once trading has stopped: what happened, and what the viewer's shares pay or paid. */
export function OutcomePanel({
  market,
  status,
  held,
  settlements,
  children,
}: {
  market: MarketDetail;
  status: ShownStatus;
  held: Position[];
  /** The viewer's payouts in a settled market (undefined while loading, null when signed out). */
  settlements?: { data: Settlement[] | undefined; error: unknown } | null;
  children?: ReactNode;
}) {
  const resolved = status === 'resolved' || status === 'settled';
  return (
    <section className="card outcome" aria-labelledby="outcome-heading">
      <h2 id="outcome-heading">{resolved ? 'Outcome' : 'Trading closed'}</h2>
      {resolved && market.exclusive ? <WinnerLine options={market.options} /> : null}
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
          Trading stopped {formatDate(market.closedAt ?? market.closesAt)}. The result is announced when the
          market resolves; no orders are taken meanwhile.
        </p>
      )}
      {status === 'resolved' ? (
        <p className="muted small">
          Resolved {formatDate(market.resolvedAt)}. Winnings are paid when the market settles, after the
          dispute window ends {formatDate(market.disputeWindowEndsAt)}.
        </p>
      ) : null}
      {status === 'settled' ? (
        <p className="muted small">Settled {formatDate(market.settledAt)}: winnings have been paid.</p>
      ) : null}
      {status === 'settled' && settlements ? (
        settlements.error ? (
          <ErrorMessage error={settlements.error} />
        ) : settlements.data ? (
          <Paid settlements={settlements.data} />
        ) : (
          <Loading label="Reading what you were paid…" />
        )
      ) : null}
      {held.length > 0 && status === 'resolved' ? (
        <ul className="plain payouts" aria-label="Your payout">
          {held.map((position) => {
            const option = market.options.find((candidate) => candidate.id === position.optionId);
            const each = option?.resolution ? payoutCents(position.side, option.resolution) : null;
            return (
              <li key={position.id} data-testid="payout">
                {formatNumber(position.quantity)} {sideName(position.side)} · {position.optionLabel}:{' '}
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

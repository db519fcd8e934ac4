import type { Action } from '../../api/types';
import { formatCredits } from '../../lib/format';
import type { FillEstimate } from '../../lib/market';
import type { Kind } from './order-draft';

function Fact({ term, value, testId }: { term: string; value: string; testId?: string }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd data-testid={testId}>{value}</dd>
    </div>
  );
}

/**
 * What the order costs or brings: the estimate from the book (a market order that fills), the worst case, what a
 * bought share pays if it wins, and the cash available.
 */
export function CostList({
  action,
  kind,
  estimate,
  worstCents,
  payout,
  cashCents,
}: {
  action: Action;
  kind: Kind;
  estimate: FillEstimate | null;
  worstCents: number;
  /** What the shares bought pay if they win, and when they do. */
  payout: { label: string; cents: number };
  cashCents: number | null;
}) {
  const buying = action === 'BUY';
  const market = kind === 'market';
  const estimated = estimate && estimate.filled > 0 && market ? estimate.totalCents : null;
  return (
    <dl className="preview">
      {estimated !== null ? (
        <Fact
          term={buying ? 'Estimated cost' : 'Estimated proceeds'}
          value={formatCredits(estimated)}
          testId="preview-estimate"
        />
      ) : null}
      <Fact
        term={buying ? (market ? 'Cost, at most' : 'Cost') : market ? 'You receive, at least' : 'You receive'}
        value={formatCredits(worstCents)}
        testId="preview-cost"
      />
      {buying ? (
        <Fact term={payout.label} value={formatCredits(payout.cents)} testId="preview-payout" />
      ) : null}
      {cashCents !== null ? <Fact term="Available" value={formatCredits(cashCents)} /> : null}
    </dl>
  );
}

import { useState } from 'react';
import { Link } from 'react-router';
import { downloadTrades } from '../api/client';
import {
  formatCredits,
  formatDate,
  formatNumber,
  formatPrice,
  formatSignedCredits,
  pnlClass,
  titleCase,
} from '../lib/format';
import { type PageItem, useAction, usePagedApi } from '../lib/hooks';
import { useInView } from '../lib/in-view';
import { PagedList } from './Paged';
import { ErrorMessage } from './Status';
import { Tabs } from './Tabs';

type Fill = PageItem<'/api/me/fills'>;
type Settlement = PageItem<'/api/me/settlements'>;
type Kind = 'fills' | 'settlements';

const PAGE = 25;
const settlementsInit = { params: { query: { limit: PAGE } } };
const KINDS = [
  { value: 'fills', label: 'Fills' },
  { value: 'settlements', label: 'Settlements' },
] as const;

const sideName = (side: 'YES' | 'NO') => (side === 'YES' ? 'Yes' : 'No');

function Market({ slug, title, option }: { slug: string; title: string | undefined; option: string }) {
  return (
    <td data-label="Market" className="stack-head">
      <Link to={`/markets/${slug}`}>{title ?? titleCase(slug)}</Link>
      <div className="muted small">{option}</div>
    </td>
  );
}

/** What a fill did to the cash: a buy paid its price and fee, a sale brought its price less the fee. */
function cashCents(fill: Fill): number {
  return fill.action === 'BUY' ? -(fill.notionalCents + fill.feeCents) : fill.notionalCents - fill.feeCents;
}

function FillsTable({ fills }: { fills: Fill[] }) {
  return (
    <table className="data stack" aria-label="Fills">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Market</th>
          <th scope="col">Fill</th>
          <th scope="col" className="num">
            Price
          </th>
          <th scope="col">Role</th>
          <th scope="col" className="num">
            Fee
          </th>
          <th scope="col" className="num">
            Cash
          </th>
        </tr>
      </thead>
      <tbody>
        {fills.map((fill) => (
          <tr key={fill.id} data-testid="fill">
            <td data-label="Time" className="stack-time">
              {formatDate(fill.createdAt)}
            </td>
            <Market slug={fill.eventSlug} title={fill.eventTitle} option={fill.optionLabel} />
            <td data-label="Fill">
              <span className={fill.action === 'BUY' ? 'buy' : 'sell'}>
                {fill.action === 'BUY' ? 'Buy' : 'Sell'}
              </span>{' '}
              {formatNumber(fill.quantity)}{' '}
              <span className={fill.side === 'YES' ? 'yes' : 'no'}>{sideName(fill.side)}</span>
            </td>
            <td data-label="Price" className="num">
              {formatPrice(fill.priceCents)}
            </td>
            <td data-label="Role">
              <span className={`role ${fill.role}`}>{fill.role === 'maker' ? 'Maker' : 'Taker'}</span>
            </td>
            <td data-label="Fee" className="num">
              {formatCredits(fill.feeCents)}
            </td>
            <td data-label="Cash" className={`num stack-wide ${pnlClass(cashCents(fill))}`}>
              {formatSignedCredits(cashCents(fill))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function outcomeText(settlement: Settlement): string {
  if (settlement.outcome === 'VOID') return 'Void: 50¢ a share';
  const result = settlement.outcome === settlement.side ? 'won' : 'lost';
  return `Resolved ${sideName(settlement.outcome)} · ${result}`;
}

function SettlementsTable({ settlements }: { settlements: Settlement[] }) {
  return (
    <table className="data stack" aria-label="Settlements">
      <thead>
        <tr>
          <th scope="col">Settled</th>
          <th scope="col">Market</th>
          <th scope="col">Shares held</th>
          <th scope="col">Outcome</th>
          <th scope="col" className="num">
            Payout
          </th>
          <th scope="col" className="num">
            Profit
          </th>
        </tr>
      </thead>
      <tbody>
        {settlements.map((settlement) => (
          <tr key={settlement.id} data-testid="settlement">
            <td data-label="Settled" className="stack-time">
              {formatDate(settlement.settledAt)}
            </td>
            <Market
              slug={settlement.eventSlug}
              title={settlement.eventTitle}
              option={settlement.optionLabel}
            />
            <td data-label="Shares held">
              {formatNumber(settlement.quantity)}{' '}
              <span className={settlement.side === 'YES' ? 'yes' : 'no'}>{sideName(settlement.side)}</span>
            </td>
            <td data-label="Outcome">{outcomeText(settlement)}</td>
            <td data-label="Payout" className="num">
              {formatCredits(settlement.payoutCents)}
            </td>
            <td data-label="Profit" className={`num ${pnlClass(settlement.pnlCents)}`}>
              {formatSignedCredits(settlement.pnlCents)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Fills() {
  const fills = usePagedApi('/api/me/fills', { params: { query: { limit: PAGE } } });
  return (
    <>
      <p className="muted small">
        Every execution of your orders, newest first. Maker: your order was waiting in the book; taker: your
        order took what was there.
      </p>
      <PagedList list={fills} empty="No fills yet: your trades show here." more="Load more fills">
        {(items) => <FillsTable fills={items} />}
      </PagedList>
    </>
  );
}

function Settlements() {
  const settlements = usePagedApi('/api/me/settlements', settlementsInit);
  return (
    <>
      <p className="muted small">
        What each market paid you when it settled: 100¢ a winning share, 50¢ a share of either side when void.
      </p>
      <PagedList
        list={settlements}
        empty="No settlements yet: a market you hold pays out here when it settles."
        more="Load more settlements"
      >
        {(items) => <SettlementsTable settlements={items} />}
      </PagedList>
    </>
  );
}

/**
 * Your history: each fill (its role and fee) and what each settled market paid, page by page. Read when scrolled
 * to, one tab at a time; the CSV export has every trade.
 */
export function AccountHistory() {
  const [kind, setKind] = useState<Kind>('fills');
  const { ref, seen } = useInView<HTMLElement>();
  const exportCsv = useAction(downloadTrades);
  return (
    <section className="card" aria-labelledby="history-heading" ref={ref}>
      <div className="section-head">
        <h2 id="history-heading">History</h2>
        <button
          type="button"
          className="button ghost small"
          disabled={exportCsv.pending}
          onClick={() => void exportCsv.run()}
        >
          {exportCsv.pending ? 'Preparing…' : 'Export CSV'}
        </button>
      </div>
      <ErrorMessage error={exportCsv.error} />
      <Tabs id="history" label="History of" tabs={KINDS} value={kind} onChange={setKind}>
        {!seen ? (
          <p className="muted small">Your history loads as you scroll here.</p>
        ) : kind === 'fills' ? (
          <Fills />
        ) : (
          <Settlements />
        )}
      </Tabs>
    </section>
  );
}

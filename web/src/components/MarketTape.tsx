import { useStreamStatus } from '../api/live';
import type { OptionDetail } from '../api/types';
import { formatNumber, formatPrice } from '../lib/format';
import { usePagedApi } from '../lib/hooks';
import { TAPE_PATH, type TapeTrade, tapeInit } from '../lib/market-data';
import { PagedList } from './Paged';
import { TableScroll } from './TableScroll';

/** A trade's time: the clock (to the second) for today's, the date and clock before, each kept whole. */
function When({ iso }: { iso: string }) {
  const date = new Date(iso);
  const clock = date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit', second: '2-digit' });
  if (date.toDateString() === new Date().toDateString()) return <span className="nowrap">{clock}</span>;
  const day = date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  const time = date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
  return (
    <>
      <span className="nowrap">{day},</span> <span className="nowrap">{time}</span>
    </>
  );
}

function TapeTable({ trades, labels }: { trades: TapeTrade[]; labels: Map<string, string> | null }) {
  return (
    <TableScroll label="Market trades table">
      <table className="data tape" aria-label="Market trades">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Taker</th>
            <th scope="col" className="num">
              Yes price
            </th>
            <th scope="col" className="num">
              Shares
            </th>
          </tr>
        </thead>
        <tbody>
          {trades.map((trade) => (
            <tr key={trade.id} data-testid="tape-trade">
              <td>
                <When iso={trade.at} />
              </td>
              <td>
                <span className="nowrap">
                  {trade.takerAction === 'BUY' ? 'Bought' : 'Sold'}{' '}
                  <span className={trade.takerSide === 'YES' ? 'yes' : 'no'}>
                    {trade.takerSide === 'YES' ? 'Yes' : 'No'}
                  </span>
                </span>
                {labels ? <div className="muted small">{labels.get(trade.optionId) ?? ''}</div> : null}
              </td>
              <td className="num">{formatPrice(trade.yesPriceCents)}</td>
              <td className="num">{formatNumber(trade.quantity)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/**
 * The market's public tape: its latest trades in every option, read once when scrolled to, then kept up to date by
 * the stream's trades (the page follows them already); older ones page by page.
 */
export function MarketTape({ slug, options }: { slug: string; options: OptionDetail[] }) {
  const tape = usePagedApi(TAPE_PATH, tapeInit(slug));
  const status = useStreamStatus();
  const labels = options.length > 1 ? new Map(options.map((option) => [option.id, option.label])) : null;
  return (
    <section className="card" aria-labelledby="tape-heading">
      <div className="section-head">
        <h2 id="tape-heading">Trades</h2>
        <span className="muted small" data-testid="tape-status">
          {status === 'down' ? 'Live updates lost: reconnecting' : 'Every trade here, newest first · live'}
        </span>
      </div>
      <PagedList list={tape} empty="No trades in this market yet." more="Older trades">
        {(items) => <TapeTable trades={items} labels={labels} />}
      </PagedList>
    </section>
  );
}

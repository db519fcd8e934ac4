import { Link } from 'react-router';
import type { Trade } from '../api/types';

/** A trade as a list shows it; the history's rows carry their market's title. */
type TradeRow = Trade & { eventTitle?: string };

import { formatCredits, formatDate, formatNumber, formatPrice, titleCase } from '../lib/format';
import { TableScroll } from './TableScroll';

export function TradesTable({ trades, showMarket = true }: { trades: TradeRow[]; showMarket?: boolean }) {
  return (
    <TableScroll label="Trades table">
      <table className="data" aria-label="Trades">
        <thead>
          <tr>
            <th scope="col">Time</th>
            {showMarket ? <th scope="col">Market</th> : null}
            <th scope="col">Trade</th>
            <th scope="col">Price</th>
            <th scope="col">Total</th>
            <th scope="col">Type</th>
          </tr>
        </thead>
        <tbody>
          {trades.map((trade) => (
            <tr key={trade.id}>
              <td>{formatDate(trade.createdAt)}</td>
              {showMarket ? (
                <td>
                  <Link to={`/markets/${trade.eventSlug}`}>{trade.eventTitle ?? trade.eventSlug}</Link>
                  <div className="muted small">{trade.optionLabel}</div>
                </td>
              ) : null}
              <td>
                <span className={trade.action === 'BUY' ? 'buy' : 'sell'}>
                  {titleCase(trade.action.toLowerCase())}
                </span>{' '}
                {formatNumber(trade.quantity)}{' '}
                <span className={trade.side === 'YES' ? 'yes' : 'no'}>
                  {titleCase(trade.side.toLowerCase())}
                </span>
              </td>
              <td>{formatPrice(trade.priceCents)}</td>
              <td>{formatCredits(trade.priceCents * trade.quantity + trade.feeCents)}</td>
              <td className="muted">
                {titleCase(trade.orderKind)} · {trade.liquidity}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

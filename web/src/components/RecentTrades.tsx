import { useRecentTrades } from '../api/live';
import { formatNumber, formatPrice } from '../lib/format';
import { TableScroll } from './TableScroll';

/** Executions in the selected option as they happen, from the market-data stream. */
export function RecentTrades({ optionId, label }: { optionId: string; label: string }) {
  const trades = useRecentTrades(optionId);
  return (
    <section className="card" aria-labelledby="recent-trades-heading">
      <h2 id="recent-trades-heading">Live trades: {label}</h2>
      {trades === null ? (
        <p className="empty">Live trades are not available right now; the order book still refreshes.</p>
      ) : trades.length === 0 ? (
        <p className="empty">No trades since you opened this page. New ones appear here as they happen.</p>
      ) : (
        <TableScroll label="Live trades table">
          <table className="data" aria-label="Live trades">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Taker</th>
                <th scope="col">Yes price</th>
                <th scope="col">Shares</th>
              </tr>
            </thead>
            <tbody aria-live="polite">
              {trades.map((trade) => (
                <tr key={trade.id}>
                  <td>{new Date(trade.at).toLocaleTimeString()}</td>
                  <td>
                    {trade.takerAction === 'BUY' ? 'Bought' : 'Sold'}{' '}
                    <span className={trade.takerSide === 'YES' ? 'yes' : 'no'}>
                      {trade.takerSide === 'YES' ? 'Yes' : 'No'}
                    </span>
                  </td>
                  <td>{formatPrice(trade.yesPriceCents)}</td>
                  <td>{formatNumber(trade.quantity)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

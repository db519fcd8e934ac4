import { Link } from 'react-router';
import type { MarketSummary } from '../api/types';
import { formatCredits, formatDay, formatPercentBps, formatPrice, titleCase } from '../lib/format';

const SHOWN_OPTIONS = 3;

export function StatusTag({ status }: { status: string }) {
  return <span className={`tag status-${status}`}>{titleCase(status)}</span>;
}

export function MarketCard({ market }: { market: MarketSummary }) {
  const volume = market.options.reduce((sum, option) => sum + option.volumeCents, 0);
  return (
    <article className="card market-card">
      <div className="market-card-meta">
        <span className="tag">{titleCase(market.category)}</span>
        {market.status !== 'open' ? <StatusTag status={market.status} /> : null}
      </div>
      <h3>
        <Link to={`/markets/${market.slug}`}>{market.title}</Link>
      </h3>
      <ul className="option-list">
        {market.options.slice(0, SHOWN_OPTIONS).map((option) => (
          <li key={option.id}>
            <span className="option-label">{option.label}</span>
            <span className="prob-bar" aria-hidden="true">
              <span className="prob-fill" style={{ width: `${option.probabilityBps / 100}%` }} />
            </span>
            <span className="prices">
              <span className="yes">Yes {formatPrice(option.yesPriceCents)}</span>
              <span className="no">No {formatPrice(option.noPriceCents)}</span>
            </span>
            <span className="visually-hidden">, {formatPercentBps(option.probabilityBps)} chance</span>
          </li>
        ))}
      </ul>
      {market.options.length > SHOWN_OPTIONS ? (
        <p className="muted small">+{market.options.length - SHOWN_OPTIONS} more options</p>
      ) : null}
      <p className="market-card-foot muted small">
        <span>Volume {formatCredits(volume)}</span>
        <span>Closes {formatDay(market.closesAt)}</span>
      </p>
    </article>
  );
}

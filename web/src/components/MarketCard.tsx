import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { MarketSummary, OptionSummary } from '../api/types';
import {
  chanceTenths,
  formatCredits,
  formatDay,
  formatPercentBps,
  formatPrice,
  formatTenths,
  titleCase,
} from '../lib/format';

const SHOWN_OPTIONS = 3;

export function StatusTag({ status }: { status: string }) {
  return <span className={`tag status-${status}`}>{titleCase(status)}</span>;
}

function outcomeText(resolution: 'YES' | 'NO' | 'VOID'): string {
  return resolution === 'VOID' ? 'Void' : `Resolved ${resolution === 'YES' ? 'Yes' : 'No'}`;
}

/** An open option: its chance and prices, or, with no trade and no house quote, that it has no price yet. */
function OpenOption({ option }: { option: OptionSummary }) {
  const priced = option.lastYesPriceCents !== null || option.houseLiquidityCents > 0;
  if (!priced) {
    return (
      <>
        <span className="option-label">{option.label}</span>
        <span className="muted small">No trades yet</span>
      </>
    );
  }
  return (
    <>
      <span className="option-label">{option.label}</span>
      <span className="prob-bar" aria-hidden="true">
        <span className="prob-fill" style={{ width: `${option.probabilityBps / 100}%` }} />
      </span>
      <span className="prices">
        <span className="yes">Yes {formatPrice(option.yesPriceCents)}</span>
        <span className="no">No {formatPrice(option.noPriceCents)}</span>
      </span>
      <span className="visually-hidden">, {formatPercentBps(option.probabilityBps)} chance</span>
    </>
  );
}

/** An open exclusive event's option: its chance of being the one winner. */
function ChanceOption({ label, tenths }: { label: string; tenths: number }) {
  return (
    <>
      <span className="option-label">{label}</span>
      <span className="prob-bar" aria-hidden="true">
        <span className="prob-fill" style={{ width: `${tenths / 10}%` }} />
      </span>
      <span className="prices">
        <span className="chance" data-testid="card-chance">
          {formatTenths(tenths)}
        </span>
      </span>
      <span className="visually-hidden"> chance</span>
    </>
  );
}

/**
 * An open exclusive event: its likeliest options with their chances, and the rest together, so what the card
 * shows always adds up to 100 %.
 */
function OneWinnerOptions({ options }: { options: OptionSummary[] }) {
  const tenths = chanceTenths(options.map((option) => option.probabilityBps));
  const ranked = options
    .map((option, index) => ({ id: option.id, label: option.label, tenths: tenths[index] ?? 0 }))
    .sort((a, b) => b.tenths - a.tenths);
  const shown = ranked.length > SHOWN_OPTIONS + 1 ? ranked.slice(0, SHOWN_OPTIONS) : ranked;
  const rest = ranked.slice(shown.length);
  return (
    <ul className="option-list">
      {shown.map((option) => (
        <li key={option.id}>
          <ChanceOption label={option.label} tenths={option.tenths} />
        </li>
      ))}
      {rest.length > 0 ? (
        <li className="muted">
          <ChanceOption
            label={`${rest.length} other options`}
            tenths={rest.reduce((sum, option) => sum + option.tenths, 0)}
          />
        </li>
      ) : null}
    </ul>
  );
}

/** An option once trading has stopped: its outcome, or that it awaits one; never a price to trade at. */
function StoppedOption({ option }: { option: OptionSummary }) {
  return (
    <>
      <span className="option-label">{option.label}</span>
      {option.resolution ? (
        <span className={`tag outcome-${option.resolution.toLowerCase()}`} data-testid="card-outcome">
          {outcomeText(option.resolution)}
        </span>
      ) : (
        <span className="muted small" data-testid="card-outcome">
          Awaiting result
        </span>
      )}
    </>
  );
}

/** What a market's foot says of its time: when it closes, or where it stands after that. */
function stateLine(market: MarketSummary): string {
  switch (market.status) {
    case 'open':
      return `Closes ${formatDay(market.closesAt)}`;
    case 'closed':
      return 'Trading closed: awaiting the result';
    case 'resolved':
      return 'Resolved: pays when it settles';
    case 'settled':
      return 'Settled: winners paid';
    default:
      return titleCase(market.status);
  }
}

export function MarketCard({ market, footer }: { market: MarketSummary; footer?: ReactNode }) {
  const volume = market.options.reduce((sum, option) => sum + option.volumeCents, 0);
  const open = market.status === 'open';
  return (
    <article className={`card market-card${open ? '' : ' stopped'}`} data-testid="market-card">
      <div className="market-card-meta">
        <span className="tag">{titleCase(market.category)}</span>
        {market.exclusive ? (
          <span className="tag one-winner-tag" title="Exactly one option wins: its chances add up to 100 %">
            One winner
          </span>
        ) : null}
        {open ? null : <StatusTag status={market.status} />}
      </div>
      <h3>
        <Link to={`/markets/${market.slug}`}>{market.title}</Link>
      </h3>
      {open && market.exclusive ? (
        <OneWinnerOptions options={market.options} />
      ) : (
        <>
          <ul className="option-list">
            {market.options.slice(0, SHOWN_OPTIONS).map((option) => (
              <li key={option.id}>
                {open ? <OpenOption option={option} /> : <StoppedOption option={option} />}
              </li>
            ))}
          </ul>
          {market.options.length > SHOWN_OPTIONS ? (
            <p className="muted small">+{market.options.length - SHOWN_OPTIONS} more options</p>
          ) : null}
        </>
      )}
      <p className="market-card-foot muted small">
        <span>Volume {formatCredits(volume)}</span>
        <span data-testid="card-state">{stateLine(market)}</span>
      </p>
      {footer}
    </article>
  );
}

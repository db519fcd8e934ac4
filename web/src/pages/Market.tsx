import { Link, useParams } from 'react-router';
import { ApiError } from '../api/client';
import { ErrorMessage, Loading } from '../components/Status';
import { titleCase } from '../lib/format';
import { MarketHeader } from './market/MarketHeader';
import { MarketMain } from './market/MarketMain';
import { MarketSide } from './market/MarketSide';
import { TicketOrOutcome } from './market/TicketOrOutcome';
import { useMarketPage } from './market/useMarketPage';
import { NotFoundPage } from './NotFound';

function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

/** A market's page, composed of the parts in web/src/pages/market/ around the state useMarketPage keeps. */
export function MarketPage() {
  const { slug = '' } = useParams();
  const page = useMarketPage(slug);
  const { market, status, tradable } = page;
  const data = market.data;
  if (!data) {
    if (isNotFound(market.error)) return <NotFoundPage what="market" />;
    return (
      <div className="page">
        {market.error ? (
          <ErrorMessage error={market.error} onRetry={market.reload} />
        ) : (
          <Loading label="Loading market…" />
        )}
        <p>
          <Link to="/">Back to markets</Link>
        </p>
      </div>
    );
  }
  return (
    <div className="page market-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Markets</Link> <span aria-hidden="true">›</span>{' '}
        <Link to={`/?category=${encodeURIComponent(data.category)}`}>{titleCase(data.category)}</Link>
      </nav>
      <MarketHeader data={data} status={status} signedIn={page.signedIn} />
      <div className={`market-layout${tradable ? '' : ' market-done'}`}>
        <MarketMain page={page} data={data} />
        <div className="market-side">
          <TicketOrOutcome page={page} data={data} />
          <MarketSide slug={data.slug} />
        </div>
      </div>
    </div>
  );
}

import { Link } from 'react-router';
import { apiClient, typed } from '../api/client';
import { useAuth } from '../auth';
import { MarketCard, StatusTag } from '../components/MarketCard';
import { ErrorMessage, Loaded, SignInPrompt } from '../components/Status';
import { WATCHLIST_INIT } from '../components/WatchButton';
import { OPEN_MARKETS } from '../lib/catalogue';
import { formatDay } from '../lib/format';
import { useAction, useApi, useDocumentTitle } from '../lib/hooks';
import { invalidate } from '../lib/query';

/** The markets you bookmarked: the open ones with their prices, the others with where they stand. */
export function WatchlistPage() {
  useDocumentTitle('Watchlist');
  const { signedIn } = useAuth();
  const list = useApi(signedIn ? '/api/watchlist' : null, WATCHLIST_INIT);
  const open = useApi(signedIn ? '/api/events' : null, OPEN_MARKETS);
  const remove = useAction(async (eventId: string) => {
    await typed(apiClient.DELETE('/api/watchlist/{event}', { params: { path: { event: eventId } } }));
    invalidate('/api/watchlist');
  });
  if (!signedIn) {
    return (
      <div className="page">
        <h1>Watchlist</h1>
        <SignInPrompt what="keep a watchlist of markets" />
      </div>
    );
  }
  const live = new Map((open.data?.data ?? []).map((market) => [market.id, market]));
  return (
    <div className="page">
      <h1>Watchlist</h1>
      <ErrorMessage error={remove.error} />
      <Loaded data={list.data} error={list.error} reload={list.reload}>
        {({ data }) =>
          data.length === 0 ? (
            <p className="empty">
              Nothing watched yet. Press <strong>☆ Watch</strong> on a market to keep it here.{' '}
              <Link to="/">Browse the markets</Link>
            </p>
          ) : (
            <ul className="grid plain" aria-label="Watched markets">
              {data.map((item) => {
                const market = live.get(item.eventId);
                const unwatch = (
                  <button
                    type="button"
                    className="link-button"
                    disabled={remove.pending}
                    onClick={() => void remove.run(item.eventId)}
                  >
                    Stop watching<span className="visually-hidden"> {item.title}</span>
                  </button>
                );
                return (
                  <li key={item.eventId} data-testid="watched">
                    {market ? (
                      <MarketCard market={market} footer={unwatch} />
                    ) : (
                      <article className="card market-card">
                        <div className="market-card-meta">
                          <StatusTag status={item.status} />
                        </div>
                        <h3>
                          <Link to={`/markets/${item.eventSlug}`}>{item.title}</Link>
                        </h3>
                        <p className="muted small">
                          {item.status === 'open' ? 'Closes' : 'Closed'} {formatDay(item.closesAt)}: open it
                          for the outcome and prices.
                        </p>
                        {unwatch}
                      </article>
                    )}
                  </li>
                );
              })}
            </ul>
          )
        }
      </Loaded>
    </div>
  );
}

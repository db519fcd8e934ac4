import { formatDay } from '../lib/format';
import { useApi } from '../lib/hooks';
import { Empty, ErrorMessage, Loading } from './Status';

const SHOWN_NEWS = 8;

export function NewsPanel({ slug }: { slug: string }) {
  const news = useApi('/api/events/by-slug/{slug}/news', { params: { path: { slug } } });
  return (
    <section className="card" aria-labelledby="news-heading">
      <h2 id="news-heading">News</h2>
      {news.error ? <ErrorMessage error={news.error} onRetry={news.reload} /> : null}
      {!news.data && !news.error ? <Loading label="Loading news…" /> : null}
      {news.data ? (
        <>
          {news.data.summary ? (
            <p className="summary">
              <span className="tag">Summary</span> {news.data.summary}
            </p>
          ) : null}
          {news.data.items.length === 0 ? <Empty>No news about this market yet.</Empty> : null}
          <ul className="plain news">
            {news.data.items.slice(0, SHOWN_NEWS).map((item) => (
              <li key={item.url}>
                <a href={item.url} target="_blank" rel="noopener noreferrer">
                  {item.title}
                  <span className="visually-hidden"> (opens in a new tab)</span>
                </a>
                <span className="muted small">
                  {item.source}
                  {item.publishedAt ? ` · ${formatDay(item.publishedAt)}` : ''}
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

export function SponsorPanel({ slug }: { slug: string }) {
  const sponsor = useApi('/api/events/by-slug/{slug}/sponsor', { params: { path: { slug } } });
  const value = sponsor.data?.sponsor;
  // A sponsor is optional: nothing to show, and no error worth a trader's attention, when there is none.
  if (!value) return null;
  return (
    <aside className="card sponsor" aria-label="Sponsor">
      <span className="muted small">Sponsored by</span>
      <a href={value.linkUrl} target="_blank" rel="noopener noreferrer sponsored" className="sponsor-link">
        <img src={value.logoUrl} alt="" height={32} />
        <span>{value.name}</span>
      </a>
      <p className="muted small">{value.disclosure}</p>
    </aside>
  );
}

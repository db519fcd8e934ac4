import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { MarketCard } from '../components/MarketCard';
import { PagedList } from '../components/Paged';
import { titleCase } from '../lib/format';
import { useApi, useDocumentTitle, usePagedApi } from '../lib/hooks';

const PAGE_SIZE = 24;
const STATUSES = ['open', 'closed', 'resolved', 'settled'] as const;

export function MarketsPage() {
  useDocumentTitle('Markets');
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const category = params.get('category') ?? '';
  const status = params.get('status') ?? 'open';
  // Featured markets are open ones: any filter, the status too, replaces them with the filtered list.
  const filtered = q !== '' || category !== '' || status !== 'open';
  const [draft, setDraft] = useState(q);
  useEffect(() => setDraft(q), [q]);

  const catalogue = useApi('/api/events', { params: { query: { limit: 200 } } });
  const categories = useMemo(
    () => [...new Set((catalogue.data?.data ?? []).map((market) => market.category))].sort(),
    [catalogue.data],
  );
  const featured = useApi(filtered ? null : '/api/events', {
    params: { query: { featured: '1', status: 'open', limit: 6 } },
  });
  // "all", like any value that is not a status, lists every status.
  const listed = STATUSES.find((value) => value === status);
  const list = usePagedApi('/api/events', {
    params: {
      query: { q: q || undefined, category: category || undefined, status: listed, limit: PAGE_SIZE },
    },
  });

  const update = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    setParams(next);
  };

  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    update({ q: draft.trim() });
  };

  return (
    <div className="page">
      <div className="page-head">
        <h1>Markets</h1>
        <search className="search-box">
          <form className="search" onSubmit={onSearch}>
            <label htmlFor="market-search" className="visually-hidden">
              Search markets
            </label>
            <input
              id="market-search"
              type="search"
              placeholder="Search markets"
              value={draft}
              maxLength={200}
              onChange={(event) => setDraft(event.target.value)}
            />
            <button type="submit" className="button">
              Search
            </button>
          </form>
        </search>
        <Link to="/suggest" className="button small ghost">
          Suggest a market
        </Link>
      </div>

      <div className="filters">
        <fieldset className="chips">
          <legend className="visually-hidden">Category</legend>
          <button
            type="button"
            className="chip"
            aria-pressed={category === ''}
            onClick={() => update({ category: '' })}
          >
            All
          </button>
          {categories.map((name) => (
            <button
              key={name}
              type="button"
              className="chip"
              aria-pressed={category === name}
              onClick={() => update({ category: name })}
            >
              {titleCase(name)}
            </button>
          ))}
        </fieldset>
        <div className="field inline">
          <label htmlFor="market-status">Status</label>
          <select
            id="market-status"
            value={status}
            onChange={(event) => update({ status: event.target.value })}
          >
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {titleCase(value)}
              </option>
            ))}
            <option value="all">All</option>
          </select>
        </div>
      </div>

      {!filtered && featured.data && featured.data.data.length > 0 ? (
        <section aria-labelledby="featured-heading">
          <h2 id="featured-heading">Featured</h2>
          <div className="grid featured">
            {featured.data.data.map((market) => (
              <MarketCard key={market.id} market={market} />
            ))}
          </div>
        </section>
      ) : null}

      <section aria-labelledby="all-heading">
        <h2 id="all-heading">{q ? `Results for “${q}”` : category ? titleCase(category) : 'All markets'}</h2>
        <PagedList
          list={list}
          empty="No markets match. Try another search or category."
          more="Load more markets"
        >
          {(markets) => (
            <div className="grid">
              {markets.map((market) => (
                <MarketCard key={market.id} market={market} />
              ))}
            </div>
          )}
        </PagedList>
      </section>
    </div>
  );
}

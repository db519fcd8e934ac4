import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { MarketCard } from '../components/MarketCard';
import { PagedList } from '../components/Paged';
import { Empty, Loaded } from '../components/Status';
import { OPEN_MARKETS } from '../lib/catalogue';
import { titleCase } from '../lib/format';
import { useApi, useDocumentTitle, usePagedApi } from '../lib/hooks';

const PAGE_SIZE = 24;
const FEATURED = 6;
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

  // One read of the open markets gives the categories, the featured row and the unfiltered list.
  const catalogue = useApi('/api/events', OPEN_MARKETS);
  const categories = useMemo(
    () => [...new Set((catalogue.data?.data ?? []).map((market) => market.category))].sort(),
    [catalogue.data],
  );
  const featured = (catalogue.data?.data ?? []).filter((market) => market.featured).slice(0, FEATURED);
  // "all", like any value that is not a status, lists every status.
  const listed = STATUSES.find((value) => value === status);
  const list = usePagedApi(filtered ? '/api/events' : null, {
    params: {
      query: { q: q || undefined, category: category || undefined, status: listed, limit: PAGE_SIZE },
    },
  });
  const [shown, setShown] = useState(PAGE_SIZE);

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

      <p className="lede" data-testid="price-meaning">
        A price is the crowd's chance in cents: a Yes share at 62¢ pays 100¢ if it happens and nothing if it
        does not.
      </p>

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

      {!filtered && featured.length > 0 ? (
        <section aria-labelledby="featured-heading">
          <h2 id="featured-heading">Featured</h2>
          <div className="grid featured">
            {featured.map((market) => (
              <MarketCard key={market.id} market={market} />
            ))}
          </div>
        </section>
      ) : null}

      <section aria-labelledby="all-heading">
        <h2 id="all-heading">
          {q
            ? `Results for “${q}”`
            : category
              ? titleCase(category)
              : filtered
                ? `${titleCase(status)} markets`
                : 'All open markets'}
        </h2>
        {filtered ? (
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
        ) : (
          <Loaded data={catalogue.data} error={catalogue.error} reload={catalogue.reload}>
            {({ data }) =>
              data.length === 0 ? (
                <Empty>No market is open right now. Suggest one!</Empty>
              ) : (
                <>
                  <div className="grid">
                    {data.slice(0, shown).map((market) => (
                      <MarketCard key={market.id} market={market} />
                    ))}
                  </div>
                  {shown < data.length ? (
                    <button
                      type="button"
                      className="button ghost load-more"
                      onClick={() => setShown((count) => count + PAGE_SIZE)}
                    >
                      Load more markets
                    </button>
                  ) : null}
                </>
              )
            }
          </Loaded>
        )}
      </section>
    </div>
  );
}

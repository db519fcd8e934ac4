import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { MarketSummary, Page } from '../api/types';
import { MarketCard } from '../components/MarketCard';
import { PagedList } from '../components/Paged';
import { Empty, Loaded } from '../components/Status';
import { OPEN_MARKETS } from '../lib/catalogue';
import { titleCase } from '../lib/format';
import { type Resource, useApi, useDocumentTitle, usePagedApi } from '../lib/hooks';

const PAGE_SIZE = 24;
const FEATURED = 6;
const STATUSES = ['open', 'closed', 'resolved', 'settled'] as const;

/** The search, category and status in the address, and a way to change them (a blank value removes one). */
function useMarketFilters() {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const category = params.get('category') ?? '';
  const status = params.get('status') ?? 'open';
  const update = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    setParams(next);
  };
  // Featured markets are open ones: any filter, the status too, replaces them with the filtered list.
  return { q, category, status, filtered: q !== '' || category !== '' || status !== 'open', update };
}

function SearchBox({ q, onSearch }: { q: string; onSearch: (q: string) => void }) {
  const [draft, setDraft] = useState(q);
  useEffect(() => setDraft(q), [q]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(draft.trim());
  };
  return (
    <search className="search-box">
      <form className="search" onSubmit={submit}>
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
  );
}

/** The category chips (from the open markets) and the status to list. */
function MarketFilters({
  categories,
  filters,
}: {
  categories: string[];
  filters: ReturnType<typeof useMarketFilters>;
}) {
  const { category, status, update } = filters;
  return (
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
  );
}

function MarketGrid({ markets }: { markets: MarketSummary[] }) {
  return (
    <div className="grid">
      {markets.map((market) => (
        <MarketCard key={market.id} market={market} />
      ))}
    </div>
  );
}

/** Every open market from the one read, a page at a time. */
function OpenMarkets({
  catalogue,
  shown,
  onMore,
}: {
  catalogue: Resource<Page<MarketSummary>>;
  shown: number;
  onMore: () => void;
}) {
  return (
    <Loaded data={catalogue.data} error={catalogue.error} reload={catalogue.reload}>
      {({ data }) =>
        data.length === 0 ? (
          <Empty>No market is open right now. Suggest one!</Empty>
        ) : (
          <>
            <MarketGrid markets={data.slice(0, shown)} />
            {shown < data.length ? (
              <button type="button" className="button ghost load-more" onClick={onMore}>
                Load more markets
              </button>
            ) : null}
          </>
        )
      }
    </Loaded>
  );
}

function listHeading({ q, category, status, filtered }: ReturnType<typeof useMarketFilters>): string {
  if (q) return `Results for “${q}”`;
  if (category) return titleCase(category);
  return filtered ? `${titleCase(status)} markets` : 'All open markets';
}

export function MarketsPage() {
  useDocumentTitle('Markets');
  const filters = useMarketFilters();
  const { q, category, status, filtered } = filters;
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
  return (
    <div className="page">
      <div className="page-head">
        <h1>Markets</h1>
        <SearchBox q={q} onSearch={(value) => filters.update({ q: value })} />
        <Link to="/suggest" className="button small ghost">
          Suggest a market
        </Link>
      </div>
      <p className="lede" data-testid="price-meaning">
        A price is the crowd's chance in cents: a Yes share at 62¢ pays 100¢ if it happens and nothing if it
        does not.
      </p>
      <MarketFilters categories={categories} filters={filters} />
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
        <h2 id="all-heading">{listHeading(filters)}</h2>
        {filtered ? (
          <PagedList
            list={list}
            empty="No markets match. Try another search or category."
            more="Load more markets"
          >
            {(markets) => <MarketGrid markets={markets} />}
          </PagedList>
        ) : (
          <OpenMarkets
            catalogue={catalogue}
            shown={shown}
            onMore={() => setShown((count) => count + PAGE_SIZE)}
          />
        )}
      </section>
    </div>
  );
}

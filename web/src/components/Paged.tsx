import type { ReactNode } from 'react';
import type { Paged } from '../lib/hooks';
import { Empty, ErrorMessage, Loading } from './Status';

/** The states of a paged list around its rows: loading, failure, empty, and "load more". */
export function PagedList<T>({
  list,
  empty,
  more = 'Load more',
  children,
}: {
  list: Paged<T>;
  empty: ReactNode;
  more?: string;
  children: (items: T[]) => ReactNode;
}) {
  return (
    <>
      {list.items.length > 0 ? children(list.items) : null}
      {list.error ? <ErrorMessage error={list.error} onRetry={list.reload} /> : null}
      {list.loading ? <Loading /> : null}
      {!list.loading && !list.error && list.items.length === 0 ? <Empty>{empty}</Empty> : null}
      {list.hasMore && !list.loading ? (
        <button type="button" className="button ghost load-more" onClick={list.loadMore}>
          {more}
        </button>
      ) : null}
    </>
  );
}

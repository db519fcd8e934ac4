import { type InfiniteData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { FetchResponse, MaybeOptionalInit, ParseAsResponse } from 'openapi-fetch';
import type { Readable, ResponseObjectMap, SuccessResponse } from 'openapi-typescript-helpers';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { paths } from '../../../clients/typescript/src/index.js';
import { apiClient, sessionToken, typed } from '../api/client';
import { apiKey, freshMs, queryClient } from './query';

/** The document's paths that answer GET, the options of such a read, and its JSON answer. */
export type GetPath = { [P in keyof paths]: paths[P] extends { get: object } ? P : never }[keyof paths];
export type GetInit<P extends GetPath> = NonNullable<MaybeOptionalInit<paths[P], 'get'>>;
type GetArgs<P extends GetPath> =
  undefined extends MaybeOptionalInit<paths[P], 'get'> ? [init?: GetInit<P>] : [init: GetInit<P>];
type Media = `${string}/${string}`;
type GetOutcome<P extends GetPath> = FetchResponse<paths[P]['get'], GetInit<P>, Media>;
export type GetAnswer<P extends GetPath> = ParseAsResponse<
  Readable<SuccessResponse<ResponseObjectMap<paths[P]['get']>, Media>>,
  GetInit<P>
>;

/** `apiClient.GET` for any path P: openapi-fetch cannot resolve its init tuple while P is still generic. */
const get: <P extends GetPath>(path: P, init: GetInit<P>) => Promise<GetOutcome<P>> = apiClient.GET;

export function read<P extends GetPath>(
  path: P,
  init: GetInit<P> | undefined,
  signal?: AbortSignal,
): Promise<GetAnswer<P>> {
  return typed(get(path, Object.assign({ signal }, init)));
}

/** The cache key of `path` read with `init`'s parameters. */
export function keyOf<P extends GetPath>(path: P, init?: GetInit<P>) {
  return apiKey(path, (init as { params?: unknown } | undefined)?.params);
}

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  setData: (update: (current: T | undefined) => T | undefined) => void;
}

/**
 * GETs `path` of the API document with `init`'s parameters (nothing while the path is null), through the shared
 * cache: a read another component made a moment ago is not sent again. `reload` reads it again now.
 */
export function useApi<P extends GetPath>(path: P | null, ...[init]: GetArgs<P>): Resource<GetAnswer<P>> {
  type T = GetAnswer<P>;
  const key = path === null ? ['none'] : keyOf(path, init);
  const query = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => read(path as P, init, signal),
    enabled: path !== null,
    staleTime: path === null ? 0 : freshMs(path),
  });
  const { refetch } = query;
  const reload = useCallback(() => void refetch(), [refetch]);
  const keyText = JSON.stringify(key);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyText stands for the key
  const setData = useCallback(
    (update: (current: T | undefined) => T | undefined) => queryClient.setQueryData<T>(key, update),
    [keyText],
  );
  return {
    data: query.data,
    error: query.error,
    loading: path !== null && query.isFetching,
    reload,
    setData,
  };
}

export function useSessionToken(): string | null {
  const [token, setToken] = useState(sessionToken.get);
  useEffect(() => sessionToken.subscribe(setToken), []);
  return token;
}

/** Runs an action, remembering whether it is in flight and how it last failed. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const latest = useRef(action);
  latest.current = action;
  const run = useCallback(async (...args: A): Promise<R | undefined> => {
    setPending(true);
    setError(null);
    try {
      return await latest.current(...args);
    } catch (reason) {
      setError(reason);
      return undefined;
    } finally {
      setPending(false);
    }
  }, []);
  return { run, pending, error, clearError: useCallback(() => setError(null), []) };
}

export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · Predict Exchange` : 'Predict Exchange';
  }, [title]);
}

export interface PageOf<T> {
  data: T[];
  nextCursor: string | null;
}

/** The document's paths that answer a cursor page (`{data, nextCursor}`) and take the next page's `cursor`. */
export type PagedPath = {
  [P in GetPath]: GetAnswer<P> extends PageOf<unknown>
    ? GetInit<P> extends { params?: { query?: { cursor?: string } } }
      ? P
      : never
    : never;
}[GetPath];
export type PageItem<P extends PagedPath> = GetAnswer<P> extends PageOf<infer T> ? T : never;

/** One page of `path`: the first, or the one after `cursor`. */
function readPage<P extends PagedPath>(
  path: P,
  init: GetInit<P> | undefined,
  cursor: string | null,
  signal?: AbortSignal,
): Promise<PageOf<PageItem<P>>> {
  const query = { ...init?.params?.query, ...(cursor ? { cursor } : {}) };
  const page = read(path, Object.assign({}, init, { params: { ...init?.params, query } }), signal);
  // PagedPath admits only paths that answer a PageOf; TypeScript cannot follow that through a generic P.
  return page as Promise<PageOf<PageItem<P>>>;
}

export interface Paged<T> {
  items: T[];
  /** The pages as read, for what they carry beside the items (a feed's unread count). */
  pages: PageOf<T>[];
  error: unknown;
  loading: boolean;
  hasMore: boolean;
  loadMore: () => void;
  reload: () => void;
  setItems: (update: (items: T[]) => T[]) => void;
}

/** The key of a paged list: its own kind of entry beside the plain read of the same path. */
export function pagedKeyOf<P extends PagedPath>(path: P, init?: GetInit<P>) {
  return [...keyOf(path, init), 'pages'];
}

/**
 * Replaces the items of a cached paged list (a stream event applied in place): one page holding them, so a later
 * read starts again from the first page.
 */
export function setPagedItems<T>(key: readonly unknown[], update: (items: T[]) => T[]): void {
  queryClient.setQueryData<InfiniteData<PageOf<T>, string | null>>(key, (current) => {
    if (!current) return current;
    const last = current.pages[current.pages.length - 1];
    // What a page carries beside its items (a feed's unread count) is kept from the first.
    const first = current.pages[0];
    return {
      pages: [
        {
          ...first,
          data: update(current.pages.flatMap((page) => page.data)),
          nextCursor: last?.nextCursor ?? null,
        },
      ],
      pageParams: [null],
    };
  });
}

/**
 * A cursor-paginated list of the document's `path` with `init`'s parameters, through the shared cache: the first
 * page, then more on demand.
 */
export function usePagedApi<P extends PagedPath>(path: P | null, ...[init]: GetArgs<P>): Paged<PageItem<P>> {
  type T = PageItem<P>;
  const key = path === null ? ['none', 'pages'] : pagedKeyOf(path, init);
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam, signal }) => readPage(path as P, init, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last: PageOf<T>) => last.nextCursor,
    enabled: path !== null,
    staleTime: path === null ? 0 : freshMs(path),
  });
  const { refetch, fetchNextPage, hasNextPage, isFetchingNextPage } = query;
  const items = query.data?.pages.flatMap((page) => page.data) ?? [];
  const keyText = JSON.stringify(key);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyText stands for the key
  const setItems = useCallback((update: (items: T[]) => T[]) => setPagedItems(key, update), [keyText]);
  return {
    items,
    pages: query.data?.pages ?? [],
    error: query.error,
    loading: path !== null && query.isFetching && !query.isRefetching,
    hasMore: Boolean(hasNextPage) && !isFetchingNextPage,
    loadMore: useCallback(() => void fetchNextPage(), [fetchNextPage]),
    reload: useCallback(() => void refetch(), [refetch]),
    setItems,
  };
}

import type { FetchResponse, MaybeOptionalInit, ParseAsResponse } from 'openapi-fetch';
import type { Readable, ResponseObjectMap, SuccessResponse } from 'openapi-typescript-helpers';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { paths } from '../../../clients/typescript/src/index.js';
import { apiClient, sessionToken, typed } from '../api/client';

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

function read<P extends GetPath>(
  path: P,
  init: GetInit<P> | undefined,
  signal?: AbortSignal,
): Promise<GetAnswer<P>> {
  return typed(get(path, Object.assign({ signal }, init)));
}

/** What makes a read a different one: the path template and the parameters. */
function keyOf(path: string | null, init: { params?: unknown } | undefined): string | null {
  return path === null ? null : JSON.stringify([path, init?.params]);
}

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  setData: (update: (current: T | undefined) => T | undefined) => void;
}

/**
 * GETs `path` of the API document with `init`'s parameters (nothing while the path is null), and again whenever
 * they change, when `reload` is called, or when the user logs in or out, since most answers depend on who asks.
 */
export function useApi<P extends GetPath>(path: P | null, ...[init]: GetArgs<P>): Resource<GetAnswer<P>> {
  type T = GetAnswer<P>;
  const [data, setState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(path !== null);
  const [version, setVersion] = useState(0);
  const token = useSessionToken();
  const key = keyOf(path, init);

  // biome-ignore lint/correctness/useExhaustiveDependencies: key stands for path and init; version and token ask for a fresh read
  useEffect(() => {
    if (path === null) {
      setLoading(false);
      return;
    }
    const controller = new AbortController();
    setLoading(true);
    read(path, init, controller.signal)
      .then((value) => {
        setState(value);
        setError(null);
      })
      .catch((reason: unknown) => {
        if (controller.signal.aborted) return;
        setError(reason);
      })
      .finally(() => {
        if (!controller.signal.aborted) setLoading(false);
      });
    return () => controller.abort();
  }, [key, version, token]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  const setData = useCallback((update: (current: T | undefined) => T | undefined) => setState(update), []);
  return { data, error, loading, reload, setData };
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
  return { run, pending, error, clearError: () => setError(null) };
}

export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · Predict Exchange` : 'Predict Exchange';
  }, [title]);
}

interface PageOf<T> {
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
  error: unknown;
  loading: boolean;
  hasMore: boolean;
  loadMore: () => void;
  reload: () => void;
  setItems: (update: (items: T[]) => T[]) => void;
}

/** A cursor-paginated list of the document's `path` with `init`'s parameters: the first page, then more on demand. */
export function usePagedApi<P extends PagedPath>(path: P | null, ...[init]: GetArgs<P>): Paged<PageItem<P>> {
  type T = PageItem<P>;
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(path !== null);
  const [version, setVersion] = useState(0);
  const token = useSessionToken();
  const key = keyOf(path, init);

  // biome-ignore lint/correctness/useExhaustiveDependencies: key stands for path and init; version and token ask for a fresh read
  useEffect(() => {
    setItems([]);
    setCursor(null);
    if (path === null) {
      setLoading(false);
      return;
    }
    const controller = new AbortController();
    setLoading(true);
    readPage(path, init, null, controller.signal)
      .then((page) => {
        setItems(page.data);
        setCursor(page.nextCursor);
        setError(null);
      })
      .catch((reason: unknown) => {
        if (!controller.signal.aborted) setError(reason);
      })
      .finally(() => {
        if (!controller.signal.aborted) setLoading(false);
      });
    return () => controller.abort();
  }, [key, version, token]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: key stands for path and init
  const loadMore = useCallback(() => {
    if (!path || !cursor) return;
    setLoading(true);
    readPage(path, init, cursor)
      .then((page) => {
        setItems((current) => [...current, ...page.data]);
        setCursor(page.nextCursor);
        setError(null);
      })
      .catch(setError)
      .finally(() => setLoading(false));
  }, [key, cursor]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { items, error, loading, hasMore: cursor !== null, loadMore, reload, setItems };
}

import { useCallback, useEffect, useRef, useState } from 'react';
import { api, sessionToken } from '../api/client';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  setData: (update: (current: T | undefined) => T | undefined) => void;
}

/**
 * GETs `path` (nothing while it is null) and again whenever it changes, when `reload` is called, or when the
 * user logs in or out, since most answers depend on who asks.
 */
export function useResource<T>(path: string | null): Resource<T> {
  const [data, setState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(path !== null);
  const [version, setVersion] = useState(0);
  const token = useSessionToken();

  // biome-ignore lint/correctness/useExhaustiveDependencies: version and token only ask for a fresh read
  useEffect(() => {
    if (path === null) {
      setLoading(false);
      return;
    }
    const controller = new AbortController();
    setLoading(true);
    api<T>(path, { signal: controller.signal })
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
  }, [path, version, token]);

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

export interface Paged<T> {
  items: T[];
  error: unknown;
  loading: boolean;
  hasMore: boolean;
  loadMore: () => void;
  reload: () => void;
  setItems: (update: (items: T[]) => T[]) => void;
}

/** A cursor-paginated list (`{data, nextCursor}`): the first page of `path`, then more on demand. */
export function usePaged<T>(path: string | null): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(path !== null);
  const [version, setVersion] = useState(0);
  const token = useSessionToken();

  // biome-ignore lint/correctness/useExhaustiveDependencies: version and token only ask for a fresh read
  useEffect(() => {
    setItems([]);
    setCursor(null);
    if (path === null) {
      setLoading(false);
      return;
    }
    const controller = new AbortController();
    setLoading(true);
    api<{ data: T[]; nextCursor: string | null }>(path, { signal: controller.signal })
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
  }, [path, version, token]);

  const loadMore = useCallback(() => {
    if (!path || !cursor) return;
    const separator = path.includes('?') ? '&' : '?';
    setLoading(true);
    api<{ data: T[]; nextCursor: string | null }>(`${path}${separator}cursor=${encodeURIComponent(cursor)}`)
      .then((page) => {
        setItems((current) => [...current, ...page.data]);
        setCursor(page.nextCursor);
        setError(null);
      })
      .catch(setError)
      .finally(() => setLoading(false));
  }, [path, cursor]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { items, error, loading, hasMore: cursor !== null, loadMore, reload, setItems };
}

/**
 * The few calls the MCP server makes to the exchange, over HTTP with the human's key. An error answer becomes an
 * `ExchangeError` carrying the API's status, code and message, which a tool hands to the agent as it is.
 */
export class ExchangeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

export type Json = Record<string, unknown>;
export type Query = Record<string, string | number | boolean | undefined>;

export class ExchangeApi {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly timeoutMs = 15_000,
  ) {}

  get<T = Json>(path: string, query: Query = {}): Promise<T> {
    return this.send<T>('GET', path, query);
  }

  post<T = Json>(path: string, body: Json, idempotencyKey?: string): Promise<T> {
    return this.send<T>('POST', path, {}, body, idempotencyKey);
  }

  delete<T = Json>(path: string): Promise<T> {
    return this.send<T>('DELETE', path);
  }

  /** Every item of a cursor-paginated list, until `enough` says stop (newest first lists stop early). */
  async all<T = Json>(path: string, query: Query, enough: (item: T) => boolean = () => false): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await this.get<{ data: T[]; nextCursor: string | null }>(path, {
        ...query,
        limit: 200,
        cursor,
      });
      for (const item of page.data) {
        if (enough(item)) return items;
        items.push(item);
      }
      if (!page.nextCursor) return items;
      cursor = page.nextCursor;
    }
  }

  private async send<T>(
    method: string,
    path: string,
    query: Query = {},
    body?: Json,
    key?: string,
  ): Promise<T> {
    const url = new URL(`${this.baseUrl.replace(/\/+$/, '')}${path}`);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${this.apiKey}`,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (key) headers['idempotency-key'] = key;
    const response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const error = (parsed ?? {}) as { code?: string; error?: string; details?: unknown };
      throw new ExchangeError(
        response.status,
        error.code ?? `HTTP_${response.status}`,
        error.error ?? text,
        error.details,
      );
    }
    return parsed as T;
  }
}

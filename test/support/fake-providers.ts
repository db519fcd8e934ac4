import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 standing in for news, feed, AI and cricket providers. Tests say how each
 * path answers (status, body, delay) and read back the requests it received.
 */

export interface FakeAnswer {
  status?: number;
  /** Objects are sent as JSON; strings as they are. */
  body?: unknown;
  contentType?: string;
  delayMs?: number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export type FakeHandler = (request: ReceivedRequest) => FakeAnswer;

export class FakeProviders {
  readonly received: ReceivedRequest[] = [];
  private readonly routes = new Map<string, FakeHandler>();

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<FakeProviders> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeProviders(server, `http://127.0.0.1:${port}`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', fake.baseUrl);
        const request: ReceivedRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        fake.received.push(request);
        const handler = fake.routes.get(`${request.method} ${request.path}`);
        const answer = handler ? handler(request) : { status: 404, body: { error: 'no such fake route' } };
        const send = () => {
          if (res.destroyed) return;
          const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
          res.writeHead(answer.status ?? 200, {
            'content-type':
              answer.contentType ?? (typeof answer.body === 'string' ? 'text/plain' : 'application/json'),
          });
          res.end(text);
        };
        if (answer.delayMs) {
          const timer = setTimeout(send, answer.delayMs);
          res.on('close', () => clearTimeout(timer));
        } else {
          send();
        }
      });
    });
    return fake;
  }

  url(path: string): string {
    return this.baseUrl + path;
  }

  /** Sets how `method path` answers from now on. */
  on(method: 'GET' | 'POST', path: string, answer: FakeAnswer | FakeHandler): void {
    this.routes.set(`${method} ${path}`, typeof answer === 'function' ? answer : () => answer);
  }

  /** Answers `method path` with each answer in turn, repeating the last. */
  sequence(method: 'GET' | 'POST', path: string, answers: FakeAnswer[]): void {
    let next = 0;
    this.on(method, path, () => answers[Math.min(next++, answers.length - 1)] ?? {});
  }

  count(method: string, path: string): number {
    return this.received.filter((r) => r.method === method && r.path === path).length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function rss(
  items: { title: string; link: string; pubDate?: string; source?: string }[],
  title = 'Feed',
): string {
  const body = items
    .map(
      (item) =>
        `<item><title><![CDATA[${item.title}]]></title><link>${item.link}</link>` +
        (item.pubDate ? `<pubDate>${item.pubDate}</pubDate>` : '') +
        (item.source ? `<source url="https://example.org/rss">${item.source}</source>` : '') +
        '</item>',
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>${title}</title><link>https://example.org</link>${body}</channel></rss>`;
}

export function atom(
  entries: { title: string; link: string; updated: string }[],
  title = 'Atom feed',
): string {
  const body = entries
    .map(
      (entry) =>
        `<entry><title type="text">${entry.title}</title><link rel="alternate" href="${entry.link}"/>` +
        `<id>${entry.link}</id><updated>${entry.updated}</updated></entry>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>${title}</title>${body}</feed>`;
}

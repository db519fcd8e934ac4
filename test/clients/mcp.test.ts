import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeApi } from '../../clients/mcp/src/api.js';
import { TradingGuard } from '../../clients/mcp/src/guard.js';
import { createMcpServer, scopesOf } from '../../clients/mcp/src/tools.js';
import { expectInvariants } from '../support/app.js';
import { balanceOf } from '../support/exchange.js';
import { bearer, newUser, type TestUser } from '../support/factories.js';
import { type LiveService, startLiveService } from './live-service.js';

/**
 * The MCP server (`npm run mcp`) driven by the MCP SDK's own client, over stdio and over Streamable HTTP, against
 * the service listening on a real port: it lists its tools, reads, and trades only after a preview and within the
 * limits its human set.
 */
const MAIN = 'clients/mcp/src/main.ts';
const LIMITS = ['--max-order-cents', '500', '--max-daily-spend-cents', '600', '--preview-seconds', '30'];

let live: LiveService;
let trader: TestUser & { key: string };
let optionId: string;
const clients: Client[] = [];
const children: ChildProcess[] = [];

interface ToolAnswer {
  isError?: boolean;
  content: { type: string; text: string }[];
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const answer = (await client.callTool({ name, arguments: args })) as ToolAnswer;
  return { isError: answer.isError === true, body: JSON.parse(answer.content[0]?.text ?? 'null') };
}

async function stdioClient(key: string, extra: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', MAIN, ...LIMITS, ...extra],
    env: { ...(process.env as Record<string, string>), PMX_URL: live.baseUrl, PMX_API_KEY: key },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function newTrader(): Promise<TestUser & { key: string }> {
  const user = await newUser(live.t.app);
  const res = await live.t.app.inject({
    method: 'POST',
    url: '/api/me/api-keys',
    headers: bearer(user.token),
    payload: { name: 'agent' },
  });
  return { ...user, key: res.json().key };
}

beforeAll(async () => {
  live = await startLiveService({ TAKER_FEE_BPS: '100' });
  trader = await newTrader();
  const res = await live.t.app.inject({
    method: 'POST',
    url: '/api/admin/events',
    headers: bearer(live.admin.token),
    payload: {
      title: `Will the agent behave ${Date.now()}`,
      category: 'ai',
      closesAt: new Date(Date.now() + 86_400_000).toISOString(),
      options: [{ label: 'Yes', liquidityCents: 20_000 }],
      open: true,
    },
  });
  optionId = res.json().options[0].id;
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  for (const child of children) child.kill('SIGKILL');
  if (!live) return;
  await expectInvariants(live.t.database);
  await live.t.close();
});

describe('the MCP server over stdio', () => {
  it('lists its tools and answers a read tool', async () => {
    const client = await stdioClient(trader.key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'cancel_all_orders',
        'cancel_order',
        'get_candles',
        'get_limits',
        'get_market',
        'get_order_book',
        'get_positions',
        'get_quote',
        'list_markets',
        'list_orders',
        'place_order',
        'preview_order',
      ].sort(),
    );
    const book = await call(client, 'get_order_book', { optionId });
    expect(book.isError).toBe(false);
    expect(book.body.optionId).toBe(optionId);
    expect(book.body.yes.asks[0].houseQuantity).toBeGreaterThan(0);
    const markets = await call(client, 'list_markets', {});
    expect(
      markets.body.data.some((event: { options: { id: string }[] }) => event.options[0]?.id === optionId),
    ).toBe(true);
    const limits = await call(client, 'get_limits');
    expect(limits.body).toMatchObject({
      limits: { maxOrderCents: 500, maxDailySpendCents: 600 },
      spentTodayCents: 0,
    });
  });

  it('refuses a trade above the cap, and places one below it only from its preview, once', async () => {
    const client = await stdioClient(trader.key);
    const above = await call(client, 'preview_order', {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 60,
      type: 'market',
    });
    expect(above.isError).toBe(true);
    expect(above.body).toMatchObject({ refused: true, code: 'ABOVE_ORDER_LIMIT' });
    expect(await balanceOf(live.t.app, trader.token)).toEqual({ cashCents: 100_000, reservedCents: 0 });

    const preview = await call(client, 'preview_order', {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 5,
      type: 'market',
    });
    expect(preview.isError, JSON.stringify(preview.body)).toBe(false);
    const quote = (
      await live.t.app.inject({
        url: `/api/options/${optionId}/quote?side=YES&action=BUY&quantity=5`,
        headers: bearer(trader.token),
      })
    ).json();
    expect(preview.body.now).toEqual({
      filledQuantity: 5,
      totalCents: quote.totalCents,
      averagePriceCents: quote.averagePriceCents,
    });
    expect(preview.body.worstCaseCents).toBeLessThanOrEqual(500);

    const placed = await call(client, 'place_order', { previewId: preview.body.previewId });
    expect(placed.isError, JSON.stringify(placed.body)).toBe(false);
    expect(placed.body).toMatchObject({ kind: 'market', filledQuantity: 5, status: 'filled' });
    expect((await balanceOf(live.t.app, trader.token)).cashCents).toBe(100_000 - preview.body.now.totalCents);
    const again = await call(client, 'place_order', { previewId: preview.body.previewId });
    expect(again.body).toMatchObject({ refused: true, code: 'UNKNOWN_PREVIEW' });
    expect((await balanceOf(live.t.app, trader.token)).cashCents).toBe(100_000 - preview.body.now.totalCents);

    // 600 cents a day: what was spent counts, and one more order like it would pass the limit.
    const spent = (await call(client, 'get_limits')).body.spentTodayCents;
    expect(spent).toBe(preview.body.now.totalCents);
    const over = await call(client, 'preview_order', {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 8,
      type: 'market',
    });
    expect(over.body).toMatchObject({ refused: true, code: 'ABOVE_DAILY_LIMIT' });
  });

  it('refuses a preview the book moved away from, and cancels what it placed', async () => {
    const agent = await newTrader();
    const client = await stdioClient(agent.key);
    const preview = await call(client, 'preview_order', {
      optionId,
      side: 'NO',
      action: 'BUY',
      quantity: 3,
      type: 'market',
    });
    expect(preview.isError).toBe(false);
    const other = await newUser(live.t.app);
    await live.t.app.inject({
      method: 'POST',
      url: '/api/trades',
      headers: bearer(other.token),
      payload: { optionId, side: 'NO', action: 'BUY', quantity: 40, priceCents: 99 },
    });
    const moved = await call(client, 'place_order', { previewId: preview.body.previewId });
    expect(moved.body).toMatchObject({ refused: true, code: 'PRICE_MOVED' });

    const limit = await call(client, 'preview_order', {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 4,
      type: 'limit',
      priceCents: 5,
    });
    expect(limit.body).toMatchObject({ resting: 4, worstCaseCents: 21 });
    const placed = await call(client, 'place_order', { previewId: limit.body.previewId });
    expect(placed.body.status).toBe('open');
    expect((await call(client, 'list_orders', { status: 'open' })).body.data).toHaveLength(1);
    const cancelled = await call(client, 'cancel_all_orders', { optionId });
    expect(cancelled.body.cancelledCount).toBe(1);
    expect((await call(client, 'list_orders', {})).body.data).toEqual([]);
  });

  it('offers no trading tool when its human starts it read-only', async () => {
    const client = await stdioClient(trader.key, ['--read-only']);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('get_positions');
    expect(names.filter((name) => /preview|place|cancel/.test(name))).toEqual([]);
  });
});

describe('the MCP server over Streamable HTTP', () => {
  it('serves the same tools to an MCP client, behind its token', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...LIMITS, '--http', '--port', '0'], {
      env: { ...process.env, PMX_URL: live.baseUrl, PMX_API_KEY: trader.key, MCP_HTTP_TOKEN: 'let-me-in' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stderr?.on('data', (chunk) => {
        output += chunk;
        const found = /listening on (\S+)/.exec(output);
        if (found) resolve(found[1] as string);
      });
      child.once('exit', () => reject(new Error(`the server exited: ${output}`)));
    });
    const refused = await fetch(url, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(refused.status).toBe(401);

    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: 'Bearer let-me-in' } },
      }),
    );
    clients.push(client);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('preview_order');
    const positions = await call(client, 'get_positions');
    expect(positions.body.summary.cashCents).toBeGreaterThan(0);
  });
});

describe('the scopes of the key', () => {
  let fake: Server;
  let fakeUrl: string;

  beforeAll(async () => {
    // A service whose keys already carry scopes, as GET /api/me/api-keys will show them.
    fake = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ prefix: 'pmx_live_abcd', scopes: ['read', 'cancel'] }] }));
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => fake.close(() => resolve())));

  it('registers the trading tools only for a key with the trade scope', async () => {
    const api = new ExchangeApi(fakeUrl, 'pmx_live_abcdef');
    const scopes = await scopesOf(api, 'pmx_live_abcdef');
    expect(scopes).toEqual(['read', 'cancel']);
    const guard = new TradingGuard(api, {
      maxOrderCents: 1,
      maxOrderShares: 1,
      maxDailySpendCents: 1,
      previewTtlMs: 1,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer({ api, guard, scopes, readOnly: false }).connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('cancel_all_orders');
    expect(names).not.toContain('preview_order');
    expect(names).not.toContain('place_order');
    await client.close();

    const live = new ExchangeApi(fakeUrl, 'pmx_live_zzzz');
    expect(await scopesOf(live, 'pmx_live_zzzz')).toEqual(['read', 'trade', 'cancel', 'account']);
  });
});

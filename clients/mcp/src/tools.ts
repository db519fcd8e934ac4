import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { type ExchangeApi, ExchangeError, type Json } from './api.js';
import { Refused, type TradingGuard } from './guard.js';

/** What a key may do. Keys made before the exchange had scopes may do everything. */
export type Scope = 'read' | 'trade' | 'cancel' | 'account';
export const ALL_SCOPES: Scope[] = ['read', 'trade', 'cancel', 'account'];

/**
 * The scopes of the key the server runs with, as `GET /api/me/api-keys` lists them (the entry whose prefix the key
 * starts with). A listing without scopes (keys before scopes existed) or a session token: every scope.
 */
export async function scopesOf(api: ExchangeApi, key: string): Promise<Scope[]> {
  const { data } = await api.get<{ data: { prefix: string; scopes?: string[] }[] }>('/api/me/api-keys');
  const entry = data.find((k) => key.startsWith(k.prefix));
  if (!entry?.scopes) return ALL_SCOPES;
  return ALL_SCOPES.filter((scope) => entry.scopes?.includes(scope));
}

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

const text = (value: unknown): ToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
});

/** Runs a tool; a refusal (ours or the exchange's) is an error result the agent reads, never a crash. */
async function run(work: () => Promise<unknown>): Promise<ToolResult> {
  try {
    return text(await work());
  } catch (error) {
    if (error instanceof Refused || error instanceof ExchangeError)
      return { ...text({ refused: true, code: error.code, error: error.message }), isError: true };
    throw error;
  }
}

const OptionId = z
  .string()
  .regex(/^[1-9][0-9]*$/)
  .describe('An option id (each option of an event is a YES/NO market)');
const Side = z.enum(['YES', 'NO']);
const Action = z.enum(['BUY', 'SELL']);
const Quantity = z.number().int().min(1).describe('Whole shares');
const Price = z.number().int().min(1).max(99);

export interface ServerOptions {
  api: ExchangeApi;
  guard: TradingGuard;
  scopes: Scope[];
  /** The human allowed no trading at all, whatever the key may do. */
  readOnly: boolean;
}

/** The exchange as MCP tools: reads for any key; preview, place and cancel only where the key and the human allow. */
export function createMcpServer({ api, guard, scopes, readOnly }: ServerOptions): McpServer {
  const server = new McpServer({ name: 'pmx-exchange', version: '1.0.0' });
  registerReads(server, api, guard);
  if (!readOnly && scopes.includes('trade')) registerTrading(server, guard);
  if (!readOnly && scopes.includes('cancel')) registerCancels(server, api);
  return server;
}

function registerReads(server: McpServer, api: ExchangeApi, guard: TradingGuard): void {
  const read = { readOnlyHint: true, openWorldHint: true };
  server.registerTool(
    'list_markets',
    {
      description:
        'Markets (events) with their options and YES prices in cents (a price of 62 is a 62 % chance). `query` ' +
        'searches titles and descriptions.',
      inputSchema: {
        query: z.string().max(200).optional(),
        status: z.enum(['open', 'closed', 'resolved', 'settled']).default('open'),
        limit: z.number().int().min(1).max(50).default(20),
      },
      annotations: read,
    },
    ({ query, status, limit }) => run(() => api.get('/api/events', { q: query, status, limit })),
  );
  server.registerTool(
    'get_market',
    {
      description: 'One market by its slug: options, prices, best bid and ask, price history.',
      inputSchema: { slug: z.string().max(200) },
      annotations: read,
    },
    ({ slug }) => run(() => api.get(`/api/events/${encodeURIComponent(slug)}`)),
  );
  server.registerTool(
    'get_order_book',
    {
      description:
        'The order book of an option: bids and asks with their shares, from the YES and the NO side.',
      inputSchema: { optionId: OptionId },
      annotations: read,
    },
    ({ optionId }) => run(() => api.get(`/api/orderbook/${optionId}`)),
  );
  server.registerTool(
    'get_candles',
    {
      description: 'Open, high, low and close of an option’s YES price (cents), with volume, oldest first.',
      inputSchema: {
        optionId: OptionId,
        interval: z.enum(['1m', '5m', '15m', '1h', '6h', '1d']).default('1h'),
        from: z.string().datetime().optional(),
        to: z.string().datetime().optional(),
      },
      annotations: read,
    },
    ({ optionId, interval, from, to }) =>
      run(() => api.get(`/api/options/${optionId}/candles`, { interval, from, to })),
  );
  server.registerTool(
    'get_quote',
    {
      description:
        'What a market trade of `quantity` shares would cost (or bring) right now, from the exchange: the prices ' +
        'walked, the fee, the total. Nothing is placed.',
      inputSchema: {
        optionId: OptionId,
        side: Side,
        action: Action,
        quantity: Quantity,
        priceCents: Price.optional(),
      },
      annotations: read,
    },
    ({ optionId, ...query }) => run(() => api.get(`/api/options/${optionId}/quote`, query)),
  );
  server.registerTool(
    'get_positions',
    { description: 'Your positions (shares, average price, value, P&L) and your cash.', annotations: read },
    () => run(() => api.get('/api/positions')),
  );
  server.registerTool(
    'list_orders',
    {
      description:
        'Your limit orders: `open` (resting) or `history` (filled, cancelled, expired), newest first.',
      inputSchema: { status: z.enum(['open', 'history']).default('open') },
      annotations: read,
    },
    ({ status }) => run(() => api.get('/api/limit-orders', { status, limit: 100 })),
  );
  server.registerTool(
    'get_limits',
    {
      description: 'The limits this server trades under (set by its human) and the cash already spent today.',
      annotations: read,
    },
    () => run(async () => ({ limits: guard.limits, spentTodayCents: await guard.spentTodayCents() })),
  );
}

function registerTrading(server: McpServer, guard: TradingGuard): void {
  server.registerTool(
    'preview_order',
    {
      description:
        'Step 1 of every order: states exactly what it would cost now (the exchange’s own quote) and the most it ' +
        'can cost, and checks it against the limits this server was started with. Nothing is placed. Show the ' +
        'preview to the user, then call place_order with its previewId (valid about a minute).',
      inputSchema: {
        optionId: OptionId,
        side: Side,
        action: Action,
        quantity: Quantity,
        type: z
          .enum(['market', 'limit'])
          .describe('market: fill now what the book offers; limit: at priceCents'),
        priceCents: Price.optional().describe('A limit order’s price; a market trade’s worst price'),
        timeInForce: z.enum(['GTC', 'IOC', 'FOK']).optional(),
        postOnly: z.boolean().optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (order) => run(() => guard.preview(order)),
  );
  server.registerTool(
    'place_order',
    {
      description:
        'Step 2: places an order previewed with preview_order, once. Refused when the preview expired, a limit ' +
        'would be passed, or the book moved since (preview again).',
      inputSchema: { previewId: z.string().uuid() },
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    ({ previewId }) => run(() => guard.place(previewId)),
  );
}

function registerCancels(server: McpServer, api: ExchangeApi): void {
  const cancel = { destructiveHint: true, idempotentHint: true, openWorldHint: true };
  server.registerTool(
    'cancel_order',
    {
      description: 'Cancels one of your resting orders.',
      inputSchema: { orderId: OptionId.describe('An order id') },
      annotations: cancel,
    },
    ({ orderId }) => run(() => api.delete(`/api/limit-orders/${orderId}`)),
  );
  server.registerTool(
    'cancel_all_orders',
    {
      description: 'Cancels all your resting orders, or those of one option.',
      inputSchema: { optionId: OptionId.optional() },
      annotations: cancel,
    },
    ({ optionId }) => run(() => api.post<Json>('/api/limit-orders/cancel-all', optionId ? { optionId } : {})),
  );
}

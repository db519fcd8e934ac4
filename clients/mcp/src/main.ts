import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ExchangeApi } from './api.js';
import { type Limits, TradingGuard } from './guard.js';
import { serveHttp } from './http.js';
import { createMcpServer, scopesOf } from './tools.js';

/**
 * The exchange for AI agents, as an MCP server: `npm run mcp -- --max-order-cents 2000 --max-daily-spend-cents
 * 10000` (stdio), or with `--http` over Streamable HTTP. The human who starts it sets the limits; the agent reads
 * markets, books, candles, positions and orders, and trades only through a preview that states the exact cost.
 * PMX_URL names the exchange (default http://localhost:3000), PMX_API_KEY the key it trades with.
 */
const { values } = parseArgs({
  options: {
    'max-order-cents': { type: 'string', default: '1000' },
    'max-order-shares': { type: 'string', default: '1000' },
    'max-daily-spend-cents': { type: 'string', default: '5000' },
    'preview-seconds': { type: 'string', default: '60' },
    'read-only': { type: 'boolean', default: false },
    http: { type: 'boolean', default: false },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8765' },
  },
});

function whole(name: keyof typeof values): number {
  const value = Number(values[name]);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`--${name} must be a whole number, got ${values[name]}`);
  return value;
}

const key = process.env.PMX_API_KEY;
if (!key) {
  process.stderr.write('Set PMX_API_KEY to the API key the server trades with\n');
  process.exit(2);
}
const limits: Limits = {
  maxOrderCents: whole('max-order-cents'),
  maxOrderShares: whole('max-order-shares'),
  maxDailySpendCents: whole('max-daily-spend-cents'),
  previewTtlMs: whole('preview-seconds') * 1000,
};
const api = new ExchangeApi(process.env.PMX_URL ?? 'http://localhost:3000', key);
const scopes = await scopesOf(api, key);
const guard = new TradingGuard(api, limits);
const readOnly = values['read-only'] === true;
const newServer = () => createMcpServer({ api, guard, scopes, readOnly });
const trading =
  readOnly || !scopes.includes('trade') ? 'no trading' : `trading under ${JSON.stringify(limits)}`;

if (values.http) {
  const { url } = await serveHttp(newServer, {
    host: String(values.host),
    port: whole('port'),
    token: process.env.MCP_HTTP_TOKEN ?? null,
  });
  process.stderr.write(`pmx MCP server listening on ${url} (${trading})\n`);
} else {
  await newServer().connect(new StdioServerTransport());
  process.stderr.write(`pmx MCP server on stdio (${trading})\n`);
}

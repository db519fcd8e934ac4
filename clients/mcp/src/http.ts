import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/**
 * The server over Streamable HTTP at `/mcp`, one MCP session per client (`Mcp-Session-Id`). It holds a trading key,
 * so it listens on loopback by default, refuses requests naming another host (DNS rebinding), and with
 * `MCP_HTTP_TOKEN` set wants that bearer token on every request.
 */
export async function serveHttp(
  newServer: () => McpServer,
  options: { host: string; port: number; token: string | null },
): Promise<{ server: Server; url: string }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, 'Internal error');
      process.stderr.write(`mcp http: ${String(error)}\n`);
    });
  });
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/mcp')
      return reply(response, 404, 'Not found');
    if (!authorized(request, options.token)) return reply(response, 401, 'Unauthorized');
    const sessionId = request.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    if (known) return known.handleRequest(request, response, body);
    if (request.method !== 'POST' || !isInitializeRequest(body))
      return reply(response, 400, 'No valid session');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      enableDnsRebindingProtection: true,
      allowedHosts,
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await newServer().connect(transport);
    return transport.handleRequest(request, response, body);
  };
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const { port } = server.address() as AddressInfo;
  allowedHosts = [`${options.host}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`];
  return { server, url: `http://${options.host}:${port}/mcp` };
}

function authorized(request: IncomingMessage, token: string | null): boolean {
  if (token === null) return true;
  const sent = Buffer.from(request.headers.authorization ?? '');
  const wanted = Buffer.from(`Bearer ${token}`);
  return sent.length === wanted.length && timingSafeEqual(sent, wanted);
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 1_000_000) throw new Error('request body over 1 MB');
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function reply(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

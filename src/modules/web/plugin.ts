import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `npm run build` writes the web app. */
export const WEB_DIST_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

/** Paths the service owns: an unknown one is a JSON 404, never the app's page. */
const SERVICE_PATHS = /^\/(?:api(?:\/|$)|docs|healthz$|readyz$|metrics$)/;

export interface WebAppOptions {
  distDir?: string;
}

/**
 * Serves the single-page web app: hashed assets with a year of caching, and `index.html` (never cached) for `/`
 * and for any other page a browser navigates to, so that client-side routes survive a reload. The app's files
 * are not counted against the API rate limit: they are static and a page load fetches several at once.
 */
export async function webApp(app: FastifyInstance, options: WebAppOptions): Promise<void> {
  const distDir = options.distDir ?? WEB_DIST_DIR;
  const unlimited = { rateLimit: false as const };

  if (!existsSync(path.join(distDir, 'index.html'))) {
    app.get('/', { schema: { hide: true }, config: unlimited }, async (request, reply) =>
      notBuilt(request, reply),
    );
    return;
  }

  // The build writes .br and .gz copies of its text files; a browser that accepts one gets it.
  await app.register(fastifyStatic, { root: distDir, serve: false, preCompressed: true });
  const topLevelFiles = new Set(
    readdirSync(distDir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name !== 'index.html' && !/\.(?:br|gz)$/.test(entry.name))
      .map((entry) => entry.name),
  );
  const sendPage = (reply: FastifyReply) =>
    reply
      .header('cache-control', 'no-cache')
      .header('vary', 'accept-encoding')
      .sendFile('index.html', { cacheControl: false });

  app.get('/', { schema: { hide: true }, config: unlimited }, async (_request, reply) => sendPage(reply));

  app.get<{ Params: { '*': string } }>(
    '/assets/*',
    { schema: { hide: true }, config: unlimited },
    async (request, reply) =>
      reply
        .header('vary', 'accept-encoding')
        .sendFile(`assets/${request.params['*']}`, { immutable: true, maxAge: '365d' }),
  );

  app.get<{ Params: { '*': string } }>(
    '/*',
    { schema: { hide: true }, config: unlimited },
    async (request, reply) => {
      const name = request.params['*'];
      if (topLevelFiles.has(name))
        return reply.header('vary', 'accept-encoding').sendFile(name, { maxAge: '1h' });
      const pathname = request.url.split('?')[0] ?? '/';
      if (SERVICE_PATHS.test(pathname) || !acceptsHtml(request)) return reply.callNotFound();
      return sendPage(reply);
    },
  );
}

function acceptsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

function notBuilt(request: FastifyRequest, reply: FastifyReply) {
  const message = 'The web app is not built yet: run `npm run build` (npm start does it for you).';
  if (acceptsHtml(request)) {
    return reply
      .type('text/html; charset=utf-8')
      .send(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Prediction-market exchange</title></head>' +
          `<body><h1>Prediction-market exchange</h1><p>${message}</p>` +
          '<p>The API is up: see <a href="/docs">the API documentation</a>.</p></body></html>',
      );
  }
  return reply.send({ message, docs: '/docs', openapi: '/api/openapi.json' });
}

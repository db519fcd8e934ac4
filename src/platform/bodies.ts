import type { FastifyInstance } from 'fastify';

/**
 * A request without a body is one, whatever its Content-Type says: a logout or a cancel sent by a client that
 * stamps `Content-Type: application/json` on every request is served, not refused as a malformed or unsupported
 * body. Only a request that announces no body (no Transfer-Encoding, no or a zero Content-Length) is concerned.
 */
export function acceptBodylessRequests(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const headers = request.headers;
    if (headers['content-type'] === undefined || headers['transfer-encoding'] !== undefined) return;
    if (headers['content-length'] === undefined || headers['content-length'] === '0') {
      delete headers['content-type'];
    }
  });
}

import type { FastifyInstance } from 'fastify';
import { ValidationError } from './errors.js';

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

/** A UTF-16 surrogate without its pair: text no encoding can carry (JSON in the database refuses it). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Where in a parsed JSON body a string (a value or a key) holds a lone surrogate (`body.options[2]`), or null. It
 * walks the body with a stack of its own, so a body nested thousands deep is looked at like any other.
 */
export function malformedTextAt(body: unknown): string | null {
  const todo: [unknown, string][] = [[body, 'body']];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    const [value, path] = next;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return path;
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        todo.push([item, `${path}[${index}]`]);
      });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (LONE_SURROGATE.test(key)) return path;
        todo.push([item, `${path}.${key}`]);
      }
    }
  }
  return null;
}

/**
 * Text in a body must be Unicode: a string holding half of a surrogate pair (`"\ud800"`, valid JSON but no
 * character) is answered 400 naming the field, before any route stores it.
 */
export function refuseMalformedText(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const field = malformedTextAt(request.body);
    if (field)
      throw new ValidationError('Text must be valid Unicode', [
        { field, message: 'holds an unpaired surrogate (\\ud800–\\udfff), which is no character' },
      ]);
  });
}

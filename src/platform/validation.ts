import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { ValidationError } from './errors.js';

type HttpPart = 'body' | 'querystring' | 'params' | 'headers';

function newAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

/**
 * Query strings, path parameters and headers are text on the wire, so they are coerced to their declared
 * types; JSON bodies are not, so `"quantity": "10"` is the validation error a client needs to see.
 */
export function installValidators(app: FastifyInstance): void {
  const strict = newAjv(false);
  const coercing = newAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }: { schema: FastifySchema; httpPart?: string }) => {
    const ajv = (httpPart as HttpPart) === 'body' ? strict : coercing;
    return ajv.compile(schema as object);
  });
  // PostgreSQL text and jsonb cannot hold U+0000: a NUL anywhere in the input is a 400 naming the field, not a 500.
  app.addHook('preValidation', async (request) => {
    const parts = { params: request.params, query: request.query, body: request.body };
    for (const [part, value] of Object.entries(parts)) {
      const field = nulField(value, part);
      if (field !== null) {
        throw new ValidationError(`Invalid request: ${field} contains a NUL character`, [
          { field, message: 'must not contain the NUL character (U+0000)' },
        ]);
      }
    }
  });
}

interface Visit {
  value: unknown;
  key: string;
  parent: Visit | null;
}

/** The dotted path of the first string or key holding U+0000, walking without recursion (bodies may nest deeply). */
function nulField(root: unknown, name: string): string | null {
  const stack: Visit[] = [{ value: root, key: name, parent: null }];
  let found: Visit | null = null;
  while (stack.length > 0 && found === null) {
    const visit = stack.pop() as Visit;
    const { value } = visit;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) found = visit;
    } else if (Array.isArray(value)) {
      for (const [index, item] of value.entries())
        stack.push({ value: item, key: String(index), parent: visit });
    } else if (value !== null && typeof value === 'object' && isPlain(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) found = visit;
        stack.push({ value: item, key, parent: visit });
      }
    }
  }
  if (found === null) return null;
  const path: string[] = [];
  for (let at: Visit | null = found; at !== null; at = at.parent) path.unshift(at.key);
  return path.join('.');
}

/**
 * Parsed JSON, query strings and route parameters; not buffers or streams (multipart bodies). Judged by the
 * constructor, not the prototype: route parameters inherit from a prototype object that has none.
 */
function isPlain(value: object): boolean {
  const maker = (value as { constructor?: unknown }).constructor;
  return maker === Object || maker === undefined;
}

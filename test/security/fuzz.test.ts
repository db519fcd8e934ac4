import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { expectInvariants } from '../support/app.js';
import { bearer, newUser } from '../support/factories.js';
import {
  anyValue,
  cursorLike,
  deeplyNested,
  headerText,
  type KnownValues,
  MALFORMED_JSON,
  NASTY_STRINGS,
  validValue,
  withDuplicateKey,
} from './arbitraries.js';
import { createLoggedApp } from './logged-app.js';
import {
  describeOperation,
  fillPath,
  type Operation,
  operationsOf,
  type Parameter,
  pathParamsOf,
  readOpenApi,
} from './openapi.js';
import { responseProblems } from './responses.js';
import { buildWorld } from './world.js';

/**
 * Drives every operation of the OpenAPI document with random requests: valid-looking and broken bodies, queries,
 * path parameters and headers, as nobody, a trader, an admin and a stranger with a made-up key. No answer may be a
 * 5xx, every error is `{error, code}` JSON, and no error shows internals.
 *
 *   FUZZ_RUNS  requests per operation (default 30)
 *   FUZZ_SEED  the random seed (default fixed, so CI is repeatable; `random` for a new one)
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED =
  process.env.FUZZ_SEED === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.FUZZ_SEED ?? 20_250_301);

const BODY_LIMIT = 64 * 1024;

type Auth = 'none' | 'user' | 'admin' | 'garbage';

type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; contentType: string | null; text: string };

interface FuzzRequest {
  auth: Auth;
  garbageAuthorization: string;
  pathValues: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body: Body;
  remoteAddress: string;
}

const t = await createLoggedApp({ LOGIN_MAX_FAILURES: '1000', LOG_LEVEL: 'error' });
/** Error log lines of the app, so that a failure shows the server's side of a 500. */
const errorLog = t.lines;
const world = await buildWorld(t.app);
const operations = operationsOf(await readOpenApi(t.app))
  // Admin operations last: closing or settling the market early would leave less for the rest to reach.
  .sort((a, b) => Number(a.admin) - Number(b.admin));

let requests = 0;
const statuses = new Map<number, number>();

afterAll(async () => {
  const byClass = [...statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  process.stdout.write(
    `fuzz: ${requests} requests over ${operations.length} operations (seed ${SEED}): ${byClass}\n`,
  );
  await t.close();
});

const credentials: { user: string; admin: string } = {
  user: await apiKeyOf(t.app, world.user.token),
  admin: await apiKeyOf(t.app, world.admin.token),
};

async function apiKeyOf(app: FastifyInstance, session: string): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/me/api-keys',
    headers: bearer(session),
    payload: { name: 'fuzz' },
  });
  return response.json().key;
}

/** The fuzzer may revoke its own key or log out; start each operation with working credentials. */
async function ensureCredentials(app: FastifyInstance): Promise<void> {
  for (const who of ['user', 'admin'] as const) {
    const me = await app.inject({ url: '/api/auth/me', headers: bearer(credentials[who]) });
    if (me.statusCode === 200 && (who === 'user' || me.json().role === 'admin')) continue;
    // The fuzzer may also have taken the admin role away (granted to another account first): an operator gives it back.
    if (me.statusCode === 200) {
      await app.services.operators.setRole(
        { userId: null, via: 'cli', address: null },
        world.admin.id,
        'admin',
      );
      continue;
    }
    const fresh =
      who === 'admin'
        ? await app.inject({
            method: 'POST',
            url: '/api/auth/login',
            payload: { email: world.admin.email, password: world.admin.password },
          })
        : null;
    const session = fresh?.statusCode === 200 ? fresh.json().token : (await newUser(app)).token;
    credentials[who] = await apiKeyOf(app, session);
  }
}

function parameterValue(parameter: Parameter, known: KnownValues): fc.Arbitrary<string> {
  const schema = parameter.schema ?? {};
  const options: fc.Arbitrary<string>[] = [
    validValue(schema, known).map((value) => String(value)),
    fc.constantFrom(...NASTY_STRINGS),
    fc.constantFrom(
      '0',
      '-1',
      '1.5',
      '1e3',
      '99999999999999999999',
      '9223372036854775808',
      ' 1',
      '1 ',
      '0x10',
    ),
  ];
  if (known.ids.length > 0) options.push(fc.constantFrom(...known.ids));
  if (parameter.name === 'cursor') options.push(cursorLike, cursorLike);
  return fc.oneof(...options);
}

function queryOf(operation: Operation, known: KnownValues): fc.Arbitrary<[string, string][]> {
  const declared = operation.parameters.filter((parameter) => parameter.in === 'query');
  const pairs = declared.map((parameter) =>
    fc.option(
      parameterValue(parameter, known).map((value): [string, string] => [parameter.name, value]),
      { freq: 3 },
    ),
  );
  const extra = fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom('limit', 'cursor', '__proto__', 'a[b]', 'x'), fc.string({ maxLength: 6 })),
      headerText,
    ),
    { maxLength: 2 },
  );
  return fc.tuple(fc.tuple(...pairs), extra, fc.boolean()).map(([chosen, more, repeat]) => {
    const list = chosen.filter((pair): pair is [string, string] => pair !== null);
    // A parameter sent twice is an array to the query parser.
    if (repeat && list[0]) list.push(list[0]);
    return [...list, ...more];
  });
}

function headersOf(operation: Operation): fc.Arbitrary<Record<string, string>> {
  const declared = operation.parameters.filter((parameter) => parameter.in === 'header');
  const idempotency = fc.option(fc.oneof(headerText, fc.uuid()), { freq: 3 });
  return fc
    .tuple(
      fc.tuple(
        ...declared.map((parameter) =>
          fc.option(headerText.map((value) => [parameter.name, value] as const)),
        ),
      ),
      idempotency,
      fc.option(fc.constantFrom('1.2.3.4', '127.0.0.1, 10.0.0.1', 'unknown', '::1', '999.999.999.999')),
    )
    .map(([pairs, key, forwarded]) => {
      const headers: Record<string, string> = {};
      for (const pair of pairs) if (pair) headers[pair[0]] = pair[1];
      if (key !== null) headers['idempotency-key'] = key;
      if (forwarded !== null) headers['x-forwarded-for'] = forwarded;
      return headers;
    });
}

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json-patch+json',
  'multipart/form-data',
  '',
];

function multipartBody(): fc.Arbitrary<Body> {
  const boundary = 'fuzzboundary';
  const png = '\x89PNG\r\n\x1a\n';
  return fc
    .tuple(
      fc.constantFrom('file', 'avatar', ''),
      fc.oneof(fc.constant(png), fc.constant('GIF89a'), fc.constant('')),
      fc.string({ maxLength: 200 }),
    )
    .map(([field, magic, rest]) => ({
      kind: 'raw',
      contentType: `multipart/form-data; boundary=${boundary}`,
      text:
        `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="x.png"\r\n` +
        `Content-Type: image/png\r\n\r\n${magic}${rest}\r\n--${boundary}--\r\n`,
    }));
}

function bodyOf(operation: Operation, known: KnownValues): fc.Arbitrary<Body> {
  const schemaValue = operation.body ? anyValue(operation.body, known) : fc.jsonValue({ maxDepth: 2 });
  const variants: fc.WeightedArbitrary<Body>[] = [
    { weight: operation.body ? 12 : 1, arbitrary: schemaValue.map((value) => ({ kind: 'json', value })) },
    { weight: operation.body ? 1 : 8, arbitrary: fc.constant({ kind: 'none' }) },
    { weight: 1, arbitrary: fc.jsonValue().map((value) => ({ kind: 'json', value })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 50, max: 20_000 }), fc.constantFrom('array' as const, 'object' as const))
        .map(([depth, kind]) => ({
          kind: 'raw',
          contentType: 'application/json',
          text: deeplyNested(depth, kind),
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          schemaValue,
          fc.oneof(fc.constantFrom(-5, 0.5, 1e300, 'x', null), fc.jsonValue({ maxDepth: 1 })),
        )
        .map(([value, other]) => ({
          kind: 'raw',
          contentType: 'application/json',
          text: withDuplicateKey(value, other),
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...MALFORMED_JSON)
        .map((text) => ({ kind: 'raw', contentType: 'application/json', text })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...WRONG_CONTENT_TYPES), schemaValue)
        .map(([contentType, value]) => ({ kind: 'raw', contentType, text: JSON.stringify(value) ?? 'x' })),
    },
    { weight: 1, arbitrary: multipartBody() },
  ];
  return fc.oneof(...variants);
}

/** A request a careful client would send: valid values, known ids, a real credential. */
function cleanRequestOf(operation: Operation, known: KnownValues): fc.Arbitrary<FuzzRequest> {
  const cleanValue = (parameter: Parameter) => {
    const valid = validValue(parameter.schema ?? {}, known, true).map(String);
    return known.ids.length > 0 ? fc.oneof(valid, fc.constantFrom(...known.ids)) : valid;
  };
  const query = operation.parameters
    .filter((parameter) => parameter.in === 'query' && parameter.name !== 'cursor')
    .map((parameter) =>
      fc.option(cleanValue(parameter).map((value): [string, string] => [parameter.name, value])),
    );
  return fc.record({
    auth: fc.constantFrom<Auth>('user', 'admin'),
    garbageAuthorization: fc.constant(''),
    pathValues: fc.record(
      Object.fromEntries(pathParamsOf(operation).map((parameter) => [parameter.name, cleanValue(parameter)])),
    ),
    query: fc.tuple(...query).map((pairs) => pairs.filter((pair): pair is [string, string] => pair !== null)),
    headers: fc
      .option(fc.uuid())
      .map((key): Record<string, string> => (key ? { 'idempotency-key': key } : {})),
    body: operation.body
      ? validValue(operation.body, known, true).map((value): Body => ({ kind: 'json', value }))
      : fc.constant<Body>({ kind: 'none' }),
    remoteAddress: fc.constantFrom('127.0.0.1', '10.9.8.7'),
  });
}

function requestOf(operation: Operation, known: KnownValues): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 1, arbitrary: cleanRequestOf(operation, known) },
    { weight: 2, arbitrary: hostileRequestOf(operation, known) },
  );
}

/** Anything: broken values, wrong types and encodings, junk headers, made-up credentials. */
function hostileRequestOf(operation: Operation, known: KnownValues): fc.Arbitrary<FuzzRequest> {
  const pathValues = fc.record(
    Object.fromEntries(
      pathParamsOf(operation).map((parameter) => [parameter.name, parameterValue(parameter, known)]),
    ),
  );
  return fc.record({
    auth: fc.constantFrom<Auth>('none', 'user', 'user', 'admin', 'admin', 'garbage'),
    garbageAuthorization: fc.oneof(
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Basic YWRtaW46YWRtaW4=',
        'bearer pmx_live_',
        `Bearer pmx_live_${'A'.repeat(43)}`,
      ),
      headerText.map((text) => `Bearer ${text}`),
      fc.constant(`Bearer ${'x'.repeat(5000)}`),
    ),
    pathValues,
    query: queryOf(operation, known),
    headers: headersOf(operation),
    body: bodyOf(operation, known),
    remoteAddress: fc.constantFrom('127.0.0.1', '10.9.8.7', '192.0.2.1', '::1', '2001:db8::1'),
  });
}

function toInject(operation: Operation, request: FuzzRequest): InjectOptions {
  const headers: Record<string, string> = { ...request.headers };
  if (request.auth === 'user') Object.assign(headers, bearer(credentials.user));
  if (request.auth === 'admin') Object.assign(headers, bearer(credentials.admin));
  if (request.auth === 'garbage') headers.authorization = request.garbageAuthorization;
  const search = new URLSearchParams(request.query).toString();
  const url = fillPath(operation.path, request.pathValues) + (search ? `?${search}` : '');
  const options: InjectOptions = {
    method: operation.method,
    url,
    headers,
    remoteAddress: request.remoteAddress,
  };
  if (request.body.kind === 'json') {
    headers['content-type'] = 'application/json';
    options.payload = JSON.stringify(request.body.value) ?? 'null';
  } else if (request.body.kind === 'raw') {
    if (request.body.contentType !== null) headers['content-type'] = request.body.contentType;
    options.payload = request.body.text;
  }
  return options;
}

async function send(app: FastifyInstance, options: InjectOptions) {
  requests += 1;
  const response = await app.inject(options);
  statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
  return response;
}

describe('fuzzing every operation of the OpenAPI document', () => {
  it('finds the operations and the secured ones', () => {
    expect(operations.length).toBeGreaterThan(50);
    expect(operations.filter((operation) => operation.secured).length).toBeGreaterThan(30);
  });

  operations.forEach((operation, index) => {
    it(describeOperation(operation), async () => {
      await ensureCredentials(t.app);
      await fc.assert(
        fc.asyncProperty(requestOf(operation, world.known), async (request) => {
          const options = toInject(operation, request);
          const response = await send(t.app, options);
          const requestText = `${options.url} ${JSON.stringify(options.headers)} ${String(options.payload ?? '')}`;
          const problems = responseProblems(response, requestText);
          if (problems.some((problem) => problem.startsWith('server error'))) {
            problems.push(`server log: ${errorLog.slice(-1).join('').slice(0, 1500)}`);
          }
          if (problems.length > 0) {
            throw new Error(
              `${options.method} ${options.url}\n${problems.join('\n')}\nrequest: ${requestText.slice(0, 1500)}`,
            );
          }
        }),
        { numRuns: RUNS, seed: SEED + index, endOnFailure: true },
      );
    });
  });

  it('answers a body over the limit with 413 on every operation that takes a body', async () => {
    await ensureCredentials(t.app);
    const oversized = JSON.stringify({ text: 'x'.repeat(BODY_LIMIT + 10) });
    for (const operation of operations.filter((o) => o.body !== null)) {
      const values = Object.fromEntries(
        pathParamsOf(operation).map((p) => [p.name, world.known.ids[0] ?? '1']),
      );
      const response = await send(t.app, {
        method: operation.method,
        url: fillPath(operation.path, values),
        headers: { ...bearer(credentials.admin), 'content-type': 'application/json' },
        payload: oversized,
      });
      expect(response.statusCode, describeOperation(operation)).toBe(413);
      expect(response.json().code).toBe('PAYLOAD_TOO_LARGE');
    }
  });

  it('leaves the ledger consistent after everything the fuzzer did', async () => {
    await expectInvariants(t.database);
  });
});

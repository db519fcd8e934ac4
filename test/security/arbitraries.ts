import fc from 'fast-check';
import type { JsonSchema } from './openapi.js';

/** Values the fuzzer mixes in because they exist in the database: ids, slugs, usernames, codes. */
export interface KnownValues {
  ids: string[];
  words: string[];
}

/** Inputs that have broken real services: injection, encoding, unicode and number edge cases. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  ' \t\r\n ',
  '\u0000',
  'a\u0000b',
  '\u202Eevil\u202C',
  'مرحبا بالعالم',
  'שלום עולם',
  '😀🔥💸',
  '👨‍👩‍👧‍👦🏳️‍🌈',
  '\uD800',
  '\uFEFFbom',
  'Ω≈ç√∫˜µ≤≥÷',
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '1; SELECT pg_sleep(5)',
  '1) UNION SELECT password_hash FROM users --',
  '" OR ""="',
  '\\',
  '%',
  '_',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, meant literally
  '${7*7}',
  '{{7*7}}',
  '%s%s%n%x',
  '../../../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '=HYPERLINK("http://x")',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e309',
  '99999999999999999999999999999999999999',
  '0x1F',
  '1.5',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'a'.repeat(10_000),
  '💸'.repeat(3_000),
];

export const NASTY_NUMBERS: readonly number[] = [
  0,
  -0,
  -1,
  1.5,
  -0.5,
  0.1,
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  2 ** 63,
  1e21,
  1e300,
  -1e300,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];

const nastyString = fc.constantFrom(...NASTY_STRINGS);
const nastyNumber = fc.constantFrom(...NASTY_NUMBERS);

/** Short text of any script, with control characters, surrogates and combining marks. */
const unicodeText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
);

/** A base64url cursor around any JSON array: the shape decodeCursor accepts, with values it may not expect. */
export const cursorLike = fc
  .array(fc.oneof(fc.integer(), nastyNumber, nastyString, fc.string({ maxLength: 10 })), {
    minLength: 0,
    maxLength: 4,
  })
  .map((values) => Buffer.from(JSON.stringify(values)).toString('base64url'));

const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  nastyNumber,
  nastyString,
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

function typeOf(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null') ?? 'null';
  if (schema.type) return schema.type;
  if (schema.properties) return 'object';
  return undefined;
}

/**
 * A value that satisfies the schema, drawn mostly from known and boundary values. `clean` keeps every nested value
 * valid too (so the request reaches the service); otherwise nested values are now and then broken.
 */
export function validValue(
  schema: JsonSchema,
  known: KnownValues,
  clean = false,
  depth = 0,
): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches && branches.length > 0)
    return fc.oneof(...branches.map((b) => validValue(b, known, clean, depth)));
  if (schema.allOf && schema.allOf.length > 0) {
    return validValue(Object.assign({}, ...schema.allOf) as JsonSchema, known, clean, depth);
  }
  switch (typeOf(schema)) {
    case 'string':
      return validString(schema, known);
    case 'integer':
      return validInteger(schema, known);
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = schema.items ?? {};
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 4, 4));
      const item = clean ? validValue(items, known, true, depth + 1) : anyValue(items, known, depth + 1);
      return fc.array(item, { minLength, maxLength });
    }
    case 'object':
      return objectValue(schema, known, clean, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Mostly a valid value, sometimes a broken one: so that requests get past validation and also fail it. */
export function anyValue(schema: JsonSchema, known: KnownValues, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 4) return fc.constant(null);
  return fc.oneof(
    { weight: 6, arbitrary: validValue(schema, known, false, depth) },
    { weight: 1, arbitrary: invalidValue(schema) },
  );
}

/** A value the schema rejects: wrong type, out of range, too long, or an unknown enum member. */
export function invalidValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [wrongType];
  const kind = typeOf(schema);
  if (kind === 'integer' || kind === 'number') {
    options.push(nastyNumber, fc.double({ noNaN: true, noDefaultInfinity: true }));
    if (schema.minimum !== undefined)
      options.push(fc.constant(schema.minimum - 1), fc.constant(schema.minimum - 0.5));
    if (schema.maximum !== undefined)
      options.push(fc.constant(schema.maximum + 1), fc.constant(schema.maximum + 0.5));
    options.push(fc.integer().map(String));
  }
  if (kind === 'string' || schema.enum) {
    options.push(nastyString, unicodeText);
    if (schema.maxLength !== undefined) options.push(fc.constant('x'.repeat(schema.maxLength + 1)));
    if (schema.enum) {
      options.push(fc.constantFrom(...schema.enum.map((v) => String(v).toLowerCase()), 'MAYBE', 'yes '));
    }
  }
  return fc.oneof(...options);
}

function validString(schema: JsonSchema, known: KnownValues): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 300;
  const fits = (value: string) =>
    value.length >= min && value.length <= max && (!schema.pattern || new RegExp(schema.pattern).test(value));
  const fromKnown = [...known.ids, ...known.words].filter(fits);
  const options: fc.Arbitrary<string>[] = [];
  if (fromKnown.length > 0) options.push(fc.constantFrom(...fromKnown));
  switch (schema.format) {
    case 'date-time':
      options.push(
        fc
          .date({
            min: new Date(Date.now() - 365 * 86_400_000),
            max: new Date(Date.now() + 365 * 86_400_000),
            noInvalidDate: true,
          })
          .map((d) => d.toISOString()),
      );
      return fc.oneof(...options);
    case 'date':
      options.push(
        fc
          .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10)),
      );
      return fc.oneof(...options);
    case 'email':
      options.push(fc.emailAddress().filter(fits));
      return fc.oneof(...options);
    case 'uri':
    case 'url':
      options.push(
        fc.constantFrom(
          'https://example.com/evidence',
          'http://127.0.0.1:1/',
          'http://169.254.169.254/latest/meta-data/',
          'http://[::1]/',
          'http://10.0.0.1/x',
          'https://user:pass@example.com/',
          'ftp://example.com/file',
          'file:///etc/passwd',
          'javascript:alert(1)',
        ),
        fc.webUrl(),
      );
      return fc.oneof(...options).filter(fits);
    default:
      break;
  }
  if (schema.pattern) {
    options.push(fc.stringMatching(new RegExp(schema.pattern)).filter(fits));
    return fc.oneof(...options);
  }
  const cap = Math.min(max, 60);
  options.push(
    fc.string({ minLength: min, maxLength: Math.max(min, cap), unit: 'grapheme' }),
    fc.string({ minLength: min, maxLength: Math.max(min, cap) }),
    nastyString.filter(fits),
  );
  if (max <= 20_000) options.push(fc.constant('é'.repeat(max)));
  return fc.oneof(...options);
}

function validInteger(schema: JsonSchema, known: KnownValues): fc.Arbitrary<number> {
  const min =
    schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -(2 ** 31));
  const max =
    schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 2 ** 31);
  const ids = known.ids.map(Number).filter((n) => n >= min && n <= max);
  const low = Math.max(min, -(2 ** 31));
  const high = Math.min(max, 2 ** 31 - 1);
  const options: fc.Arbitrary<number>[] = [
    // Small values most of the time: a quantity of 3 reaches the order book, one of 10^9 only the funds check.
    fc.integer({ min: Math.min(Math.max(low, 0), high), max: Math.min(high, Math.max(low, 0) + 20) }),
    fc.integer({ min: low, max: high }),
    fc.constantFrom(min, max),
  ];
  if (ids.length > 0) options.push(fc.constantFrom(...ids));
  return fc.oneof(...options);
}

/** The value about one time in eight, otherwise null. */
function rarely<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

function objectValue(
  schema: JsonSchema,
  known: KnownValues,
  clean: boolean,
  depth: number,
): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  const requiredKeys: string[] = [];
  for (const [key, property] of Object.entries(properties)) {
    model[key] = clean ? validValue(property, known, true, depth + 1) : anyValue(property, known, depth + 1);
    if (required.has(key)) requiredKeys.push(key);
  }
  const extra = rarely(
    fc.dictionary(
      fc.oneof(
        fc.constantFrom('__proto__', 'constructor', 'admin', 'role', 'userId'),
        fc.string({ maxLength: 8 }),
      ),
      fc.jsonValue({ maxDepth: 1 }),
      { minKeys: 1, maxKeys: 2 },
    ),
  );
  // Now and then a required field is left out.
  const dropped = requiredKeys.length > 0 ? rarely(fc.constantFrom(...requiredKeys)) : fc.constant(null);
  if (clean) return fc.record(model, { requiredKeys });
  return fc.tuple(fc.record(model, { requiredKeys }), extra, dropped).map(([value, more, drop]) => {
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>), ...(more ?? {}) };
    if (drop !== null) delete out[drop];
    return out;
  });
}

/** JSON nested `depth` levels deep, as raw text (JSON.stringify would build the same thing recursively). */
export function deeplyNested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** The same object with one key written twice, the second time with another value. */
export function withDuplicateKey(value: unknown, other: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return `{"a":${JSON.stringify(other)},"a":${JSON.stringify(value)}}`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const key = entries[0]?.[0] ?? 'quantity';
  const inner = entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  inner.push(`${JSON.stringify(key)}:${JSON.stringify(other)}`);
  return `{${inner.join(',')}}`;
}

export const MALFORMED_JSON: readonly string[] = [
  '',
  '{',
  '}',
  '{"a":1,}',
  "{'a':1}",
  '{"a":undefined}',
  '{"a":NaN}',
  '{"a":1e400}',
  '{"quantity":123456789012345678901234567890}',
  'null',
  'true',
  '"text"',
  '[]',
  '[1,2,3]',
  '0',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '\u0000',
  '{"a":"\\u0000"}',
  '{"a":"\\ud800"}',
  '\uFEFF{}',
];

/** Header values a real client could send: printable ASCII and Latin-1, no line breaks. */
export const headerText = fc
  .oneof(nastyString, fc.string({ maxLength: 60 }), fc.string({ unit: 'binary-ascii', maxLength: 60 }))
  .map((s) => s.replace(/[^\x20-\x7e\xa0-\xff]/g, ''));

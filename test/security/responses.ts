import type { LightMyRequestResponse } from 'fastify';

/** Text that only an internal failure would put in a response. */
export const LEAK_PATTERNS: readonly [string, RegExp][] = [
  ['a stack trace', /\n\s+at \S|\bat [\w$.<>]+ \([^)]*:\d+:\d+\)/],
  ['a source location', /\.(?:ts|js|mjs|cjs):\d+/],
  ['a file path', /\/src\/|\/work\/|\/home\/|node_modules|file:\/\//],
  ['SQL text', /\b(?:SELECT\s|INSERT INTO|UPDATE \w+ SET|DELETE FROM|RETURNING\s)/],
  [
    'a database error',
    /syntax error at|invalid input syntax|violates [\w-]+ constraint|duplicate key value|out of range for type|relation "|column "|invalid byte sequence|unterminated quoted|pglite|kysely/i,
  ],
  ['a JavaScript error name', /\b(?:TypeError|ReferenceError|RangeError|SyntaxError: Unexpected token)\b/],
];

/** 503 is an answer, not a failure, for these documented codes (a switched-off feature, a missing provider). */
export const DOCUMENTED_503_CODES = new Set(['FEATURE_DISABLED', 'PROVIDER_NOT_CONFIGURED']);

/**
 * What is wrong with a response, if anything: a 5xx, an error that is not `{error, code}` JSON, or internals in an
 * error body. A leak pattern that the request itself contains is not counted: error messages may quote the input
 * (a 404 names the path it could not find).
 */
export function responseProblems(response: LightMyRequestResponse, requestText: string): string[] {
  const problems: string[] = [];
  const status = response.statusCode;
  let body: unknown = null;
  if (status >= 400) {
    try {
      body = JSON.parse(response.body);
    } catch {
      problems.push(`${status} with a body that is not JSON: ${response.body.slice(0, 200)}`);
    }
    const fields = body as { error?: unknown; code?: unknown } | null;
    if (body !== null && (typeof fields?.error !== 'string' || typeof fields?.code !== 'string')) {
      problems.push(`${status} without string error and code: ${response.body.slice(0, 200)}`);
    }
    if (status >= 500 && !(status === 503 && DOCUMENTED_503_CODES.has(String(fields?.code)))) {
      problems.push(`server error ${status}: ${response.body.slice(0, 300)}`);
    }
    for (const [what, pattern] of LEAK_PATTERNS) {
      if (pattern.test(response.body) && !pattern.test(requestText)) {
        problems.push(`${status} shows ${what}: ${response.body.slice(0, 300)}`);
      }
    }
  }
  return problems;
}

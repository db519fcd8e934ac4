import { type SerializerFactory, SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Schema = Record<string, unknown>;

const PRIMITIVES = new Set(['string', 'integer', 'number', 'boolean']);

/** Fastify's own serializer compiler: fast-json-stringify, given the shared schemas (`$id`) the routes refer to. */
const fastifySerializers = SerializerSelector();

/**
 * Answers are written as Fastify writes them by default, but from a copy of each response schema (and of each
 * shared one) in which the unions that only name values (`anyOf` of string constants, each possibly or null) say
 * the type they write instead. The document keeps its unions; the serializer no longer checks every such field of
 * every answer against each branch with Ajv to choose one (for an order view, a dozen checks per order). Passed to
 * Fastify as its `schemaController.compilersFactory.buildSerializer`.
 */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = fastifySerializers(forSerializing(externalSchemas ?? {}), options);
  return (route) => compile({ ...route, schema: forSerializing(route.schema ?? {}) });
};

/** The schema with its value-only unions written as the one type they hold (a deep copy; the input is untouched). */
export function forSerializing(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forSerializing);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = forSerializing(value);
  const branches = copy.anyOf;
  if (!Array.isArray(branches)) return copy;
  const type = unionType(branches as Schema[]);
  if (type === null) return copy;
  const { anyOf: _union, ...rest } = copy;
  return { ...rest, type };
}

/**
 * The JSON type a union's branches share when every branch is a constant or a primitive of one type, with `null`
 * among them or not: `"string"` or `["string", "null"]`. Null for any other union (objects, arrays, mixed types),
 * which fast-json-stringify must still decide branch by branch.
 */
function unionType(branches: Schema[]): string | string[] | null {
  let nullable = false;
  let type: string | null = null;
  for (const branch of branches) {
    const own = branchType(branch);
    if (own === 'null') nullable = true;
    else if (own === null || (type !== null && type !== own)) return null;
    else type = own;
  }
  if (type === null) return null;
  return nullable ? [type, 'null'] : type;
}

/** A branch's type when it is only that: a constant, a primitive (with format, pattern, bounds) or null. */
function branchType(branch: Schema): string | null {
  if (branch.anyOf || branch.oneOf || branch.allOf || branch.not || branch.if) return null;
  if ('const' in branch) {
    const value = branch.const;
    if (value === null) return 'null';
    if (typeof value === 'string') return 'string';
    if (typeof value === 'boolean') return 'boolean';
    return null;
  }
  const type = branch.type;
  if (type === 'null') return 'null';
  return typeof type === 'string' && PRIMITIVES.has(type) ? type : null;
}

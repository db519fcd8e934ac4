import type { FastifyInstance } from 'fastify';

/** The parts of the OpenAPI 3.1 document the security tests read. */
export type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
  $ref?: string;
};

export interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema?: JsonSchema;
}

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The OpenAPI path, with `{name}` placeholders. */
  path: string;
  parameters: Parameter[];
  body: JsonSchema | null;
  bodyTypes: string[];
  secured: boolean;
  admin: boolean;
  statuses: number[];
}

interface RawOperation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, RawOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export async function readOpenApi(app: FastifyInstance): Promise<OpenApiDocument> {
  const response = await app.inject({ url: '/api/openapi.json' });
  if (response.statusCode !== 200) throw new Error(`openapi.json: ${response.statusCode}`);
  return response.json();
}

/** Every operation of the document, in document order. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const content = raw.requestBody?.content ?? {};
      const json = content['application/json']?.schema;
      operations.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        parameters: raw.parameters ?? [],
        body: json ? resolveRefs(json, document) : null,
        bodyTypes: Object.keys(content),
        secured: (raw.security ?? []).some((entry) => 'bearerAuth' in entry),
        admin: path.startsWith('/api/admin/'),
        statuses: Object.keys(raw.responses ?? {})
          .map(Number)
          .filter((status) => Number.isInteger(status)),
      });
    }
  }
  return operations;
}

function resolveRefs(schema: JsonSchema, document: OpenApiDocument, depth = 0): JsonSchema {
  if (depth > 20) return {};
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop() ?? '';
    const target = document.components?.schemas?.[name];
    return target ? resolveRefs(target, document, depth + 1) : {};
  }
  const out: JsonSchema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([key, value]) => [key, resolveRefs(value, document, depth + 1)]),
    );
  }
  if (schema.items) out.items = resolveRefs(schema.items, document, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key];
    if (list) out[key] = list.map((item) => resolveRefs(item, document, depth + 1));
  }
  return out;
}

/**
 * `/api/posts/{id}` with `{id: '7'}` → `/api/posts/7`; every value is percent-encoded. A lone surrogate has no
 * UTF-8 form, so it goes out as the invalid three bytes a careless client would send.
 */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => percentEncode(values[name] ?? ''));
}

function percentEncode(value: string): string {
  let out = '';
  for (const char of value) {
    try {
      out += encodeURIComponent(char);
    } catch {
      const unit = char.charCodeAt(0);
      const bytes = [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)];
      out += bytes.map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    }
  }
  return out;
}

export function pathParamsOf(operation: Operation): Parameter[] {
  return operation.parameters.filter((parameter) => parameter.in === 'path');
}

export function describeOperation(operation: Operation): string {
  return `${operation.method} ${operation.path}`;
}

import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The contract test: every response a test app sends is checked against the app's own OpenAPI document. An
 * undeclared status, a missing declared header, an undeclared content type, or a body that does not match its
 * schema (an undeclared field included) is a violation; `test/support/contract-setup.ts` fails the test that saw it.
 */
export const contractViolations: string[] = [];

type Json = Record<string, unknown>;
interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Json }>; headers?: Record<string, Json> }>;
}

/** Objects that list their properties and say nothing about others are closed: an undeclared field is an error. */
export function closeObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as Json).map(([name, sub]) => [name, closeObjects(sub)]))
        : closeObjects(value);
  }
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

/** One schema error in words: where, what, and the undeclared field if that is it. */
function describe(e: ErrorObject): string {
  const field =
    e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : '';
  return `${e.instancePath || '/'} ${e.message}${field}`;
}

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(closeObjects(document) as Json, 'openapi.json');
  }

  private operation(method: string, path: string): Operation | undefined {
    const paths = this.document.paths as Record<string, Record<string, Operation>>;
    return paths[path]?.[method];
  }

  private resolve(value: Json): Json {
    const ref = value.$ref;
    if (typeof ref !== 'string') return value;
    let target: unknown = this.document;
    for (const part of ref.replace(/^#\//, '').split('/')) target = (target as Json)[part];
    return (target ?? {}) as Json;
  }

  private validator(ref: string): ValidateFunction {
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  /** What is wrong with one webhook delivery's body: an undeclared type, or a body that does not match. */
  checkWebhook(body: string): string[] {
    const type = (JSON.parse(body) as { type?: unknown }).type;
    const webhooks = (this.document.webhooks ?? {}) as Record<string, unknown>;
    if (typeof type !== 'string' || !webhooks[type]) return [`webhook ${String(type)}: type not declared`];
    const ref = `openapi.json#/${pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema')}`;
    const validate = this.validator(ref);
    if (validate(JSON.parse(body))) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `webhook ${type}: ${describe(e)}`);
  }

  /** What is wrong with one response, or an empty list. */
  check(
    method: string,
    routeUrl: string,
    status: number,
    headers: Record<string, unknown>,
    body: unknown,
  ): string[] {
    const path = routeUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = this.operation(method.toLowerCase(), path);
    if (!operation) return [];
    const where = `${method} ${path} ${status}`;
    const statusKey = String(status);
    const response = operation.responses?.[statusKey] ?? operation.responses?.[`${statusKey[0]}XX`];
    if (!response) return [`${where}: status not declared`];
    const problems: string[] = [];
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      const header = this.resolve(declared);
      if (header.required && headers[name.toLowerCase()] === undefined) {
        problems.push(`${where}: declared header ${name} missing`);
      }
    }
    const contentType =
      String(headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim() ?? '';
    const content = response.content ?? {};
    // 204 and 304 go out without a body or its headers, whatever the handler passed (Fastify drops them).
    const empty = body === undefined || body === '' || status === 204 || status === 304;
    if (empty && Object.keys(content).length === 0) return problems;
    if (!contentType) {
      if (Object.keys(content).length > 0 && body !== undefined && body !== '') {
        problems.push(`${where}: body without a content type`);
      }
      return problems;
    }
    const media = content[contentType];
    if (!media) {
      problems.push(
        `${where}: content type ${contentType} not declared (${Object.keys(content).join(', ') || 'none'})`,
      );
      return problems;
    }
    if (contentType !== 'application/json' || typeof body !== 'string' || !media.schema) return problems;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [...problems, `${where}: body is not JSON`];
    }
    const responseKey = operation.responses?.[statusKey] ? statusKey : `${statusKey[0]}XX`;
    const ref = `openapi.json#/${pointer('paths', path, method.toLowerCase(), 'responses', responseKey, 'content', contentType, 'schema')}`;
    const validate = this.validator(ref);
    if (!validate(value)) {
      const details = (validate.errors ?? []).slice(0, 5).map(describe);
      problems.push(`${where}: body does not match: ${details.join('; ')}`);
    }
    return problems;
  }
}

/** What is wrong with one delivered webhook body against the document's `webhooks` section, or an empty list. */
export function webhookViolations(app: FastifyInstance, body: string): string[] {
  const document = app.swagger() as unknown as Json;
  return checkerOf(document).checkWebhook(body);
}

/** One checker per distinct document, shared by the apps of a test file (compiled validators are reused). */
const checkers = new Map<string, ContractChecker>();

function checkerOf(document: Json): ContractChecker {
  const key = JSON.stringify(document);
  let checker = checkers.get(key);
  if (!checker) {
    checker = new ContractChecker(document);
    checkers.set(key, checker);
  }
  return checker;
}

/** Checks every response of the app against its own document; violations go to `contractViolations`. */
export function enforceContract(app: FastifyInstance): void {
  let checker: ContractChecker | null = null;
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const url = request.routeOptions.url;
    if (!url || reply.statusCode === 101) return payload;
    checker ??= checkerOf(app.swagger() as unknown as Json);
    const body = Buffer.isBuffer(payload) ? undefined : typeof payload === 'string' ? payload : undefined;
    const problems = checker.check(request.method, url, reply.statusCode, reply.getHeaders(), body);
    contractViolations.push(...problems);
    return payload;
  });
}

/** Checks a message received on the stream against the AsyncAPI document: a list of problems, or none. */
export class StreamContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly messages: Record<string, Json>;

  constructor(document: Json) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(closeObjects(document) as Json, 'asyncapi.json');
    this.messages = (document.components as { messages: Record<string, Json> }).messages;
  }

  check(message: Record<string, unknown>): string[] {
    const type = String(message.type);
    const name = type === 'resync' ? 'userResync' : type;
    if (!this.messages[name]) return [`stream message type ${type} not declared`];
    const validate = this.ajv.getSchema(
      `asyncapi.json#/${pointer('components', 'messages', name, 'payload')}`,
    );
    if (!validate || validate(message)) return [];
    return (validate.errors ?? []).map((e) => `stream ${type}: ${e.instancePath || '/'} ${e.message}`);
  }
}

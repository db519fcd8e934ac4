import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createClient } from '@hey-api/openapi-ts';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The probe (probe/requests.ts) compiled under `tsc --strict`: against the project's generated client, and against
 * the types openapi-typescript and @hey-api/openapi-ts generate from the committed document with their default
 * options. Every `@ts-expect-error` there must meet an error (a request the service refuses), and nothing else may
 * fail.
 */

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const probe = join(root, 'test/openapi/probe/requests.ts');
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function compile(file: string): Promise<string> {
  const tsc = join(root, 'node_modules/.bin/tsc');
  const flags = ['--strict', '--noEmit', '--skipLibCheck', '--module', 'nodenext', '--target', 'es2022'];
  try {
    await run(tsc, [...flags, file], { cwd: root });
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

/** The probe beside `schema.ts` (the types it reads) and what that reads, in a directory of its own, compiled. */
async function compileAgainst(schema: string, beside: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'probe-'));
  dirs.push(dir);
  for (const [name, from] of Object.entries(beside)) await cp(from, join(dir, name), { recursive: true });
  await writeFile(join(dir, 'schema.ts'), schema);
  const source = (await readFile(probe, 'utf8')).replace(
    "'../../../clients/typescript/src/index.js'",
    "'./schema.js'",
  );
  await writeFile(join(dir, 'requests.ts'), source);
  await writeFile(join(dir, 'package.json'), '{"type": "module"}');
  return compile(join(dir, 'requests.ts'));
}

/**
 * @hey-api/openapi-ts names each schema and each operation's request by itself (`Order`, `ConvertSharesData`): the
 * probe reads them through the shape openapi-typescript gives them, the types themselves untouched.
 */
const HEY_API_NAMES = `
import type * as T from './hey-api/types.gen.js';
export interface components {
  schemas: { Order: T.Order; CancelAllResult: T.CancelAllResult; BatchOrderResult: T.BatchOrderResult };
}
export interface operations {
  convertShares: { requestBody: { content: { 'application/json': T.ConvertSharesData['body'] } } };
}
`;

describe('the contract as types', () => {
  it('makes each refused request a type error in the project’s client', async () => {
    expect(await compile(probe)).toBe('');
  }, 120_000);

  it('makes each refused request a type error in a client openapi-typescript generates by default', async () => {
    const document = JSON.parse(await readFile(join(root, 'clients/typescript/openapi.json'), 'utf8'));
    expect(await compileAgainst(astToString(await openapiTS(document)))).toBe('');
  }, 120_000);

  it('makes each refused request a type error in a client @hey-api/openapi-ts generates by default', async () => {
    const output = await mkdtemp(join(tmpdir(), 'hey-api-'));
    dirs.push(output);
    await createClient({
      input: join(root, 'clients/typescript/openapi.json'),
      output: { path: join(output, 'hey-api') },
      plugins: ['@hey-api/typescript'],
      logs: { level: 'silent' },
    });
    expect(await compileAgainst(HEY_API_NAMES, { 'hey-api': join(output, 'hey-api') })).toBe('');
  }, 120_000);
});

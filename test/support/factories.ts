import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export interface TestUser {
  id: string;
  email: string;
  username: string;
  token: string;
  password: string;
}

let counter = 0;

export function uniqueEmail(prefix = 'trader'): string {
  counter += 1;
  return `${prefix}${counter}_${randomBytes(3).toString('hex')}@example.com`;
}

/** Registers a user through the API and returns their session token. */
export async function newUser(
  app: FastifyInstance,
  fields: { email?: string; password?: string; [key: string]: unknown } = {},
): Promise<TestUser> {
  const email = fields.email ?? uniqueEmail();
  const password = fields.password ?? 'correct horse battery';
  const response = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { ...fields, email, password },
  });
  if (response.statusCode !== 201)
    throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  const body = response.json();
  return { id: body.user.id, email, username: body.user.username, token: body.token, password };
}

export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}

/** Registers a user and grants it the admin role, as `npm run admin -- grant` does. */
export async function newAdmin(
  app: FastifyInstance,
  fields: { email?: string; password?: string; [key: string]: unknown } = {},
): Promise<TestUser> {
  const user = await newUser(app, fields);
  await app.services.operators.setRole({ userId: null, via: 'cli', address: null }, user.id, 'admin');
  return user;
}

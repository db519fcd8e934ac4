import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../support/app.js';
import { newAdmin, type TestUser } from '../support/factories.js';

/**
 * The service as a client library meets it: the test app (every response checked against the contract) listening
 * on a real port, with an admin to make markets.
 */
export interface LiveService {
  t: TestApp;
  baseUrl: string;
  admin: TestUser;
}

export async function startLiveService(env: Record<string, string> = {}): Promise<LiveService> {
  const t = await createTestApp({ env: { ...env } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const admin = await newAdmin(t.app);
  return { t, baseUrl, admin };
}

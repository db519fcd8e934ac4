import type { FastifyInstance } from 'fastify';
import { bearer } from './factories.js';

export interface Market {
  id: string;
  slug: string;
  options: { id: string; label: string }[];
}

let counter = 0;

/** Creates and opens a market through the admin API. */
export async function createMarket(
  app: FastifyInstance,
  adminToken: string,
  fields: {
    options?: { label: string; liquidityCents?: number }[];
    title?: string;
    category?: string;
    featured?: boolean;
    description?: string;
    open?: boolean;
    closesAt?: string;
  } = {},
): Promise<Market> {
  counter += 1;
  const res = await app.inject({
    method: 'POST',
    url: '/api/admin/events',
    headers: bearer(adminToken),
    payload: {
      title: fields.title ?? `Market ${counter} ${Date.now()}`,
      category: fields.category ?? 'cricket',
      description: fields.description ?? 'A market made by a test',
      closesAt: fields.closesAt ?? new Date(Date.now() + 7 * 86_400_000).toISOString(),
      options: fields.options ?? [{ label: 'Yes' }],
      featured: fields.featured ?? false,
      open: fields.open ?? true,
    },
  });
  if (res.statusCode !== 201) throw new Error(`create market failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

export interface OrderFields {
  optionId: string;
  side: 'YES' | 'NO';
  action: 'BUY' | 'SELL';
  quantity: number;
  price: number;
  expiresInHours?: number;
}

export function marketTrade(
  app: FastifyInstance,
  token: string,
  o: OrderFields,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: '/api/trades',
    headers: { ...bearer(token), ...headers },
    payload: {
      optionId: o.optionId,
      side: o.side,
      action: o.action,
      quantity: o.quantity,
      priceCents: o.price,
    },
  });
}

export function limitOrder(
  app: FastifyInstance,
  token: string,
  o: OrderFields,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: '/api/limit-orders',
    headers: { ...bearer(token), ...headers },
    payload: {
      optionId: o.optionId,
      side: o.side,
      action: o.action,
      quantity: o.quantity,
      limitPriceCents: o.price,
      ...(o.expiresInHours ? { expiresInHours: o.expiresInHours } : {}),
    },
  });
}

export async function balanceOf(
  app: FastifyInstance,
  token: string,
): Promise<{ cashCents: number; reservedCents: number }> {
  return (await app.inject({ url: '/api/auth/me', headers: bearer(token) })).json().balance;
}

export async function positionsOf(app: FastifyInstance, token: string) {
  return (await app.inject({ url: '/api/positions', headers: bearer(token) })).json();
}

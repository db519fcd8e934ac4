import type { FastifyInstance } from 'fastify';
import { createMarket, limitOrder, type Market } from '../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../support/factories.js';
import type { KnownValues } from './arbitraries.js';

/** A small populated exchange: an admin, traders, a market with orders and trades, a post and a note. */
export interface World {
  admin: TestUser;
  user: TestUser;
  other: TestUser;
  market: Market;
  known: KnownValues;
}

async function post(app: FastifyInstance, token: string, url: string, payload: unknown) {
  const response = await app.inject({
    method: 'POST',
    url,
    headers: bearer(token),
    payload: payload as object,
  });
  if (response.statusCode >= 300) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
  return response.json() as Record<string, unknown>;
}

export async function buildWorld(app: FastifyInstance): Promise<World> {
  const admin = await newAdmin(app);
  const user = await newUser(app);
  const other = await newUser(app);
  const market = await createMarket(app, admin.token, {
    options: [
      { label: 'Yes', liquidityCents: 20_000 },
      { label: 'Draw', liquidityCents: 20_000 },
    ],
  });
  const optionId = market.options[0]?.id as string;
  const ids = new Set<string>([admin.id, user.id, other.id, market.id, ...market.options.map((o) => o.id)]);
  const rest = await limitOrder(app, user.token, {
    optionId,
    side: 'YES',
    action: 'BUY',
    quantity: 3,
    price: 20,
  });
  ids.add(rest.json().id);
  const filled = await limitOrder(app, other.token, {
    optionId,
    side: 'YES',
    action: 'BUY',
    quantity: 2,
    price: 90,
  });
  for (const trade of filled.json().trades as { id: string }[]) ids.add(trade.id);
  const posted = await post(app, user.token, '/api/posts', { eventSlug: market.slug, text: 'First!' });
  ids.add(String(posted.id));
  const comment = await post(app, other.token, `/api/posts/${posted.id}/comments`, { text: 'Second' });
  ids.add(String(comment.id));
  const note = await post(app, user.token, '/api/me/trade-notes', {
    eventSlug: market.slug,
    text: 'why I bought',
  });
  ids.add(String(note.id));
  const key = await post(app, user.token, '/api/me/api-keys', { name: 'bot' });
  ids.add(String(key.id));
  return {
    admin,
    user,
    other,
    market,
    known: {
      ids: [...ids],
      words: [market.slug, user.username, other.username, admin.username, 'Yes', 'Draw', 'deposits', 'upi'],
    },
  };
}

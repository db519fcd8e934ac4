import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prefixQuery } from '../../../src/modules/markets/search.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { createMarket } from '../../support/exchange.js';
import { newAdmin } from '../../support/factories.js';

/** Searching the markets: by whole words (stemmed) and by the starts of words, as a person types. */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
  const admin = await newAdmin(t.app);
  await createMarket(t.app, admin.token, {
    title: 'Inflation above 5% in March?',
    description: 'Consumer prices as the statistics office reports them',
  });
  await createMarket(t.app, admin.token, {
    title: 'Who wins the state elections?',
    description: 'Decided by the electoral commission',
  });
  await createMarket(t.app, admin.token, { title: 'India v Australia, first ODI', description: 'Cricket' });
});
afterAll(async () => {
  await t?.close();
});

async function titlesFound(q: string): Promise<string[]> {
  const res = await t.app.inject({ url: `/api/events?q=${encodeURIComponent(q)}` });
  expect(res.statusCode).toBe(200);
  return res.json().data.map((event: { title: string }) => event.title);
}

describe('market search', () => {
  it('finds a market by the start of a word of its title or description, in any case', async () => {
    expect(await titlesFound('infl')).toEqual(['Inflation above 5% in March?']);
    expect(await titlesFound('INFLATI')).toEqual(['Inflation above 5% in March?']);
    expect(await titlesFound('consu pri')).toEqual(['Inflation above 5% in March?']);
    expect(await titlesFound('electo')).toEqual(['Who wins the state elections?']);
    expect(await titlesFound('austr')).toEqual(['India v Australia, first ODI']);
  });

  it('still finds whole words stemmed, and keeps the web-search syntax', async () => {
    expect(await titlesFound('election')).toEqual(['Who wins the state elections?']);
    expect(await titlesFound('"state elections"')).toEqual(['Who wins the state elections?']);
    expect(await titlesFound('infl -march')).toEqual([]);
    expect(await titlesFound('inflation -march')).toEqual([]);
    expect(await titlesFound('zzz')).toEqual([]);
  });

  it('answers any text without a syntax error', async () => {
    for (const q of ["it's", 'a & b', ':*', '!', '(x', 'o|r', '\\', 'ünï cödé'])
      expect((await t.app.inject({ url: `/api/events?q=${encodeURIComponent(q)}` })).statusCode).toBe(200);
  });

  it('reads the starts of words from an index', async () => {
    expect(prefixQuery('Infl  rat!')).toBe('infl:* & rat:*');
    expect(prefixQuery('"state elections"')).toBeNull();
    expect(prefixQuery('infl -march')).toBeNull();
    const plan = await t.database.db.transaction().execute(async (trx) => {
      // Sequential scans off: on a table this small the planner would read it whole whatever the indexes.
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      return sql`EXPLAIN SELECT id FROM events WHERE search_words @@ to_tsquery('simple', 'infl:*')`.execute(
        trx,
      );
    });
    expect(JSON.stringify(plan.rows)).toContain('events_search_words_idx');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { bearer, newUser, type TestUser } from '../support/factories.js';

/** Validation errors name each query parameter one way (`query.<name>`) and list an enum's allowed values. */

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  user = await newUser(t.app);
});
afterAll(async () => {
  await t.close();
});

const problems = async (url: string) => {
  const res = await t.app.inject({ url, headers: bearer(user.token) });
  expect(res.statusCode, res.body).toBe(400);
  return res.json().details as { field: string; message: string }[];
};

describe('a validation error', () => {
  it('names a query parameter query.<name>, as a bad cursor is named', async () => {
    expect(await problems('/api/limit-orders?limit=0')).toEqual([
      { field: 'query.limit', message: expect.any(String) },
    ]);
    expect(await problems('/api/limit-orders?cursor=nonsense')).toEqual([
      { field: 'query.cursor', message: expect.any(String) },
    ]);
  });

  it('lists the allowed values of an enum', async () => {
    expect(await problems('/api/limit-orders?status=done')).toEqual([
      { field: 'query.status', message: 'must be one of: open, history' },
    ]);
  });

  it('refuses a split that names options, and a convert that names none', async () => {
    for (const payload of [
      { type: 'split', quantity: 1, optionIds: ['1'] },
      { type: 'convert', quantity: 1 },
      { type: 'merge', quantity: 100_000_000 },
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/events/1/conversions',
        headers: bearer(user.token),
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
  });

  it('refuses text that holds half of a surrogate pair, naming the field, and takes a whole pair', async () => {
    const suggest = (options: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/market-suggestions',
        headers: { ...bearer(user.token), 'content-type': 'application/json' },
        payload: `{"title":"Will the monsoon arrive early?","category":"Weather","options":["Yes",${options}]}`,
      });
    const lone = await suggest('"\\ud800"');
    expect(lone.statusCode, lone.body).toBe(400);
    expect(lone.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'body.options[1]', message: expect.stringContaining('surrogate') }],
    });
    const pair = await suggest('"rain \\ud83c\\udf27"');
    expect(pair.statusCode, pair.body).toBe(201);
    expect(pair.json().options).toEqual(['Yes', 'rain 🌧']);
  });
});

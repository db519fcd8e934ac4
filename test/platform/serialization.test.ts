import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { END_REASONS } from '../../src/exchange/orders.js';
import { OrderView } from '../../src/modules/trading/schemas.js';
import { buildSerializer, forSerializing } from '../../src/platform/serialization.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

describe('the schemas answers are written from', () => {
  it('say the one type of a union of constants or primitives, null among them or not', () => {
    const schema = Type.Object({
      side: Type.Union([Type.Literal('YES'), Type.Literal('NO')], { description: 'YES or NO' }),
      reason: Nullable(Type.Union([Type.Literal('user'), Type.Literal('expired')])),
      price: Nullable(Type.Integer({ minimum: 1 })),
      list: Type.Array(Type.Union([Type.Literal('a'), Type.Literal('b')])),
    });
    expect(forSerializing(schema)).toMatchObject({
      properties: {
        side: { type: 'string', description: 'YES or NO' },
        reason: { type: ['string', 'null'] },
        price: { type: ['integer', 'null'] },
        list: { type: 'array', items: { type: 'string' } },
      },
    });
    expect(JSON.stringify(forSerializing(schema))).not.toContain('anyOf');
    // The input is not touched: the document keeps its unions.
    expect(schema.properties.side.anyOf).toHaveLength(2);
  });

  it('keep the unions whose branches are objects, arrays or of different types', () => {
    const schema = Type.Object({
      either: Type.Union([Type.Integer(), Type.String()]),
      maybe: Nullable(Type.Object({ id: Type.String() })),
      lists: Type.Union([Type.Array(Type.String()), Type.Null()]),
    });
    const out = forSerializing(schema) as { properties: Record<string, { anyOf?: unknown[] }> };
    expect(out.properties.either?.anyOf).toHaveLength(2);
    expect(out.properties.maybe?.anyOf).toHaveLength(2);
    expect(out.properties.lists?.anyOf).toHaveLength(2);
  });

  it('write an order view exactly as the schema with its unions does', () => {
    const route = { method: 'GET', url: '/api/orders/{id}', httpStatus: '200', schema: OrderView };
    const plain = SerializerSelector()({}, {})(route);
    const simple = buildSerializer({}, {})(route);
    const at = fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true });
    const order = fc.record({
      id: fc.constant('17'),
      optionId: fc.constant('3'),
      eventSlug: fc.string(),
      optionLabel: fc.string(),
      kind: fc.constantFrom('market', 'limit'),
      side: fc.constantFrom('YES', 'NO'),
      action: fc.constantFrom('BUY', 'SELL'),
      quantity: fc.integer({ min: 1, max: 1_000 }),
      priceCents: fc.integer({ min: 1, max: 99 }),
      filledQuantity: fc.integer({ min: 0, max: 1_000 }),
      remainingQuantity: fc.integer({ min: 0, max: 1_000 }),
      status: fc.constantFrom('open', 'partially_filled', 'filled', 'cancelled', 'expired'),
      cancelReason: fc.constantFrom(null, ...END_REASONS),
      reservedCents: fc.integer({ min: 0, max: 100_000 }),
      clientOrderId: fc.option(fc.string(), { nil: null }),
      timeInForce: fc.constantFrom('GTC', 'GTD', 'IOC', 'FOK'),
      postOnly: fc.boolean(),
      expiresAt: fc.option(at, { nil: null }),
      replacesOrderId: fc.option(fc.constant('12'), { nil: null }),
      createdAt: at,
      updatedAt: at.map((date) => date.toISOString()),
    });
    fc.assert(
      fc.property(order, (value) => {
        expect(simple(value)).toBe(plain(value));
      }),
      { numRuns: 300 },
    );
  });
});

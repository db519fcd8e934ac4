import { type ChildProcess, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../support/app.js';
import { ADMIN_EMAIL, createMarket, marketTrade } from '../support/exchange.js';
import { bearer, newUser, type TestUser } from '../support/factories.js';

/** The examples of the README, run as their own processes against the service listening on a real port. */

type Line = Record<string, unknown> & { event: string };

class Example {
  readonly lines: Line[] = [];
  private readonly exited: Promise<number | null>;

  constructor(
    readonly child: ChildProcess,
    readonly name: string,
  ) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        this.lines.push(JSON.parse(line) as Line);
      } catch {
        // not one of its JSON lines (a warning from Node): ignore
      }
    });
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  static start(file: string, env: Record<string, string>): Example {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return new Example(child, file);
  }

  async waitFor(match: (line: Line) => boolean, timeoutMs = 20_000): Promise<Line> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`${this.name}: nothing matched in ${JSON.stringify(this.lines)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  count(event: string): number {
    return this.lines.filter((line) => line.event === event).length;
  }

  stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }
}

let t: TestApp;
let baseUrl: string;
let admin: TestUser;
const running: Example[] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { ADMIN_EMAIL } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  admin = await newUser(t.app, { email: ADMIN_EMAIL });
});
afterAll(async () => {
  for (const example of running) example.child.kill('SIGKILL');
  await expectInvariants(t.database);
  await t.close();
});

describe('the examples against a live service', () => {
  it('the bot quotes both sides, follows its fills, and cancels everything on SIGTERM; the receiver verifies real deliveries', async () => {
    // A market without house liquidity, so the bot's quotes are the book.
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'Rain', liquidityCents: 0 }],
    });
    const optionId = market.options[0]!.id;
    const botUser = await newUser(t.app);
    const taker = await newUser(t.app);

    const receiver = Example.start('examples/webhook-receiver.ts', {
      PMX_URL: baseUrl,
      PMX_TOKEN: taker.token,
      PORT: '0',
    });
    running.push(receiver);
    await receiver.waitFor((line) => line.event === 'subscribed');

    const bot = Example.start('examples/market-maker.ts', {
      PMX_URL: baseUrl,
      PMX_TOKEN: botUser.token,
      PMX_OPTION: optionId,
      PMX_SPREAD_CENTS: '4',
      PMX_SIZE: '10',
    });
    running.push(bot);
    await bot.waitFor((line) => line.event === 'placed' && line.side === 'NO');
    expect(bot.lines.filter((line) => line.event === 'placed')).toEqual([
      expect.objectContaining({ side: 'YES', limitPriceCents: 48, status: 'open' }),
      expect.objectContaining({ side: 'NO', limitPriceCents: 48, status: 'open' }),
    ]);

    // A taker buys YES from the bot's ask (its BUY NO at 48 = a YES ask at 52): the bot sees the fill and requotes.
    const trade = await marketTrade(t.app, taker.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 4,
      price: 60,
    });
    expect(trade.statusCode).toBe(201);
    expect(trade.json()).toMatchObject({ filledQuantity: 4, averagePriceCents: 52 });
    await bot.waitFor((line) => line.event === 'filled' && line.quantity === 4);
    await bot.waitFor((line) => line.event === 'placed' && line.limitPriceCents === 100 - 54);

    // The taker's events go out as signed webhooks; the receiver verifies each with standardwebhooks.
    await t.app.jobs.runNow('webhooks.deliver');
    await receiver.waitFor((line) => line.event === 'verified' && line.type === 'trade.executed');
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema(t.app.swagger() as object, 'openapi.json');
    for (const line of receiver.lines.filter((l) => l.event === 'verified')) {
      const type = String(line.type);
      const validate = ajv.compile({
        $ref: `openapi.json#/webhooks/${type}/post/requestBody/content/application~1json/schema`,
      });
      expect(validate(line.body), `${type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    const forged = await fetch(String((await receiver.waitFor((l) => l.event === 'listening')).url), {
      method: 'POST',
      headers: {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body: '{"type":"order.filled"}',
    });
    expect(forged.status).toBe(400);
    await receiver.waitFor((line) => line.event === 'rejected');

    // SIGTERM: the bot cancels what it has open and exits; nothing of it rests on the book.
    expect(await bot.stop()).toBe(0);
    expect(bot.count('stopped')).toBe(1);
    expect(bot.count('cancelled')).toBeGreaterThanOrEqual(2);
    const open = await t.app.inject({
      method: 'GET',
      url: '/api/limit-orders?status=open',
      headers: bearer(botUser.token),
    });
    expect(open.json().data).toEqual([]);
    await receiver.stop();
  });
});

import { readFileSync } from 'node:fs';
import pino from 'pino';
import { demoCatalogue, seedDemo } from '../demo.js';
import type { Outcome } from '../exchange/positions.js';
import type { Actor } from '../modules/admin/operators.js';
import type { NewEventInput } from '../modules/markets/editing.js';
import { loadConfig } from '../platform/config.js';
import { AppError } from '../platform/errors.js';
import { createMetrics } from '../platform/metrics.js';
import { openConfiguredDatabase } from '../platform/runtime.js';
import { newKeyText } from '../platform/secrets.js';
import { createServices } from '../services.js';

const USAGE = `Operator commands: npm run admin -- <command> [arguments]

  events [status]                         list events (all, or one status: draft|open|closed|resolved|settled)
  show <event>                            one event with its options and prices
  create-event <file.json | JSON>         create an event (same body as POST /api/admin/events)
  open <event> | close <event>            open a draft / close trading
  resolve <event> <option>=<YES|NO|VOID> ...
                                          resolve every option (option = id or label)
  settle <event>                          settle now (no pending dispute allowed)
  disputes [pending|upheld|rejected]      list disputes
  decide-dispute <id> upheld|rejected [<option>=<OUTCOME> ...] [--note "text"]
  status [trading|post_only|maintenance] [--event <event>] [--message "text"]
                                          show the trading status, or set it (the exchange's, or one market's)
  grant <account>                         give an account (email, username or id) the admin role
  revoke <account>                        take the admin role away (not from the last admin)
  operators                               the accounts with the admin role
  actions [limit]                         the admin audit log, newest first
  seed-demo                               load the demo: its markets, traders, discussion and tournament
  secrets [reseal | new-key]              the sealed secrets (webhook signing secrets, TOTP secrets) by the key
                                          that sealed them; reseal: seal them all with the first key of
                                          SECRETS_KEY (after a rotation); new-key: print a new key for it

<event> is an event id or slug.`;

const config = loadConfig();
const database = await openConfiguredDatabase(config);
const log = pino({ level: config.logLevel }, pino.destination(2));
const services = await createServices({ config, database, log, metrics: createMetrics() });
const { markets, accounts, operators } = services;
const cli: Actor = { userId: null, via: 'cli', address: null };

/** Commands that only read; every other one that succeeds is written to the admin audit log. */
const READ_ONLY = new Set(['events', 'show', 'disputes', 'operators', 'actions', 'help', 'grant', 'revoke']);

async function recordCommand(args: string[]): Promise<void> {
  const [command = '', ...rest] = args;
  if (READ_ONLY.has(command) || (command === 'status' && rest.length === 0)) return;
  if (command === 'secrets' && rest[0] !== 'reseal') return;
  const eventLike = ['open', 'close', 'resolve', 'settle'].includes(command);
  await operators.record({
    ...cli,
    actorId: null,
    action: `npm run admin -- ${command}`,
    summary: `Command line: ${command}`,
    targetType: eventLike ? 'event' : command === 'decide-dispute' ? 'dispute' : null,
    targetId: eventLike || command === 'decide-dispute' ? (rest[0] ?? null) : null,
    details: { args: rest },
  });
}

const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

async function outcomesFor(eventRef: string, pairs: string[]) {
  const event = await markets.catalogue.adminView(await markets.catalogue.findEventIdBySlugOrId(eventRef));
  return pairs.map((pair) => {
    const [ref, outcome] = pair.split('=');
    const option = event.options.find((o) => o.id === ref || o.label.toLowerCase() === ref?.toLowerCase());
    if (!option || !['YES', 'NO', 'VOID'].includes(outcome ?? ''))
      throw new Error(`cannot read "${pair}": use <option>=YES|NO|VOID`);
    return { optionId: option.id, outcome: outcome as Outcome };
  });
}

/** The same living demo as the first start of an empty embedded database, once. */
async function loadDemo(): Promise<number> {
  const first = demoCatalogue()[0]?.slug ?? '';
  const loaded = await markets.catalogue.findEventIdBySlugOrId(first).then(
    () => true,
    () => false,
  );
  if (loaded) throw new Error(`the demo is already loaded (market ${first} exists)`);
  return seedDemo({
    markets: markets.editing,
    accounts,
    discussion: services.social.discussion,
    tournaments: services.competitions.tournaments,
  });
}

/** The trading status, or a new one: the exchange's, or with `--event` one market's. */
async function tradingStatus([status, ...more]: string[]) {
  if (status === undefined) return markets.status.view();
  if (status !== 'trading' && status !== 'post_only' && status !== 'maintenance')
    throw new Error(`the status is trading, post_only or maintenance, not "${status}"`);
  const option = (name: string) => (more.includes(name) ? more[more.indexOf(name) + 1] : undefined);
  const eventRef = option('--event');
  const message = option('--message') ?? null;
  if (eventRef === undefined) return markets.status.setExchange(status, message, null);
  const eventId = await markets.catalogue.findEventIdBySlugOrId(eventRef);
  return markets.status.setEvent(eventId, status, message, null);
}

/** Where the sealed secrets stand, or all of them sealed with the current key, or a new key. */
async function secrets(what: string | undefined) {
  if (what === 'new-key') return print({ key: newKeyText() });
  if (what === 'reseal') return print(await services.secrets.sealStored());
  if (what !== undefined) throw new Error(`secrets takes reseal or new-key, not "${what}"`);
  return print(await services.secrets.status());
}

async function run(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  const event = async () => markets.catalogue.findEventIdBySlugOrId(rest[0] ?? '');
  switch (command) {
    case 'events':
      return print((await markets.catalogue.adminList(200, undefined, rest[0])).data);
    case 'show':
      return print(await markets.catalogue.adminView(await event()));
    case 'create-event': {
      const source = rest[0] ?? '';
      const text = source.trim().startsWith('{') ? source : readFileSync(source, 'utf8');
      return print(await markets.editing.createEvent(JSON.parse(text) as NewEventInput));
    }
    case 'open':
      return print(await markets.lifecycle.openEvent(await event()));
    case 'close':
      return print(await markets.lifecycle.closeEvent(await event()));
    case 'resolve':
      return print(
        await markets.lifecycle.resolveEvent(await event(), await outcomesFor(rest[0] ?? '', rest.slice(1))),
      );
    case 'settle':
      return print(await markets.lifecycle.settleEvent(await event()));
    case 'disputes':
      return print(
        (await markets.disputes.listDisputes((rest[0] as 'pending' | undefined) ?? null, 200)).data,
      );
    case 'decide-dispute': {
      const [id, decision, ...more] = rest;
      const noteAt = more.indexOf('--note');
      const note = noteAt >= 0 ? more[noteAt + 1] : undefined;
      const pairs = more.filter((_, i) => noteAt < 0 || (i !== noteAt && i !== noteAt + 1));
      const dispute = (await markets.disputes.listDisputes(null, 200)).data.find((d) => d.id === id);
      if (!dispute) throw new Error(`no dispute ${id}`);
      return print(
        await markets.disputes.decideDispute(null, Number(id), {
          decision: decision as 'upheld' | 'rejected',
          note,
          outcomes: pairs.length ? await outcomesFor(dispute.eventId, pairs) : undefined,
        }),
      );
    }
    case 'status':
      return print(await tradingStatus(rest));
    case 'grant':
      return print(await operators.setRole(cli, rest[0] ?? '', 'admin'));
    case 'revoke':
      return print(await operators.setRole(cli, rest[0] ?? '', 'user'));
    case 'operators':
      return print((await operators.list()).data);
    case 'actions':
      return print((await operators.actions(Number(rest[0] ?? 50), undefined, null)).data);
    case 'seed-demo':
      return print({ loaded: await loadDemo() });
    case 'secrets':
      return secrets(rest[0]);
    default:
      process.stdout.write(`${USAGE}\n`);
      if (command && command !== 'help') process.exitCode = 2;
  }
}

try {
  await run(process.argv.slice(2));
  if (process.exitCode === undefined) await recordCommand(process.argv.slice(2));
} catch (error) {
  const message =
    error instanceof AppError
      ? `${error.code}: ${error.message}`
      : error instanceof Error
        ? error.message
        : String(error);
  process.stderr.write(`error: ${message}\n`);
  process.exitCode = 1;
} finally {
  await database.close();
}

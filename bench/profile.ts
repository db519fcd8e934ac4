import { readFileSync } from 'node:fs';

/**
 * Where a server's CPU went: reads a V8 .cpuprofile (node --cpu-prof) and prints self time by stage of the order's
 * way through the server, and the busiest functions.
 *
 *   npx tsx bench/profile.ts <file.cpuprofile> [orders]
 *
 * With `orders` (how many the profiled run placed), each stage is also given in microseconds per order.
 */

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** Stages by where the code lives, first match wins. */
const STAGES: [string, RegExp][] = [
  ['idle', /^\((idle|program)\)$/],
  ['garbage collection', /^\(garbage collector\)$/],
  ['decision (src/exchange)', /\/(src|dist)\/exchange\//],
  ['pipeline: statements and rows (src/modules/trading)', /\/(src|dist)\/modules\/trading\//],
  [
    'listeners: feed, webhooks, protections, copy trading, stream',
    /\/(src|dist)\/modules\/(automation|notifications|webhooks|stream)\//,
  ],
  ['ledger', /\/(src|dist)\/modules\/ledger\//],
  ['auth, validation, rate limit, errors (src/platform)', /\/(src|dist)\/platform\//],
  ['other modules', /\/(src|dist)\/modules\//],
  ['query builder (kysely)', /node_modules\/kysely\//],
  ['driver (pg, pg-protocol, pg-types)', /node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres-array)\//],
  [
    'HTTP and JSON (fastify, light-my-request, find-my-way, ajv, fast-json-stringify)',
    /node_modules\/(fastify|@fastify|find-my-way|ajv|fast-json-stringify|avvio|light-my-request|fast-uri|secure-json-parse|helmet|toad-cache|fastify-plugin)\//,
  ],
  ['logging (pino)', /node_modules\/(pino|thread-stream|sonic-boom)/],
  ['node internals (net, http, streams, timers)', /^node:|^internal\//],
  ['other libraries', /node_modules\//],
];

function stageOf(frame: Node['callFrame']): string {
  const where = frame.url || frame.functionName;
  for (const [name, pattern] of STAGES)
    if (pattern.test(where) || pattern.test(frame.functionName)) return name;
  return frame.url ? 'other' : 'native and builtins';
}

const [file, ordersText] = process.argv.slice(2);
if (!file) throw new Error('usage: tsx bench/profile.ts <file.cpuprofile> [orders]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, index) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});

const stages = new Map<string, number>();
const functions = new Map<string, number>();
let busy = 0;
for (const [id, us] of selfUs) {
  const frame = (byId.get(id) as Node).callFrame;
  const stage = stageOf(frame);
  stages.set(stage, (stages.get(stage) ?? 0) + us);
  if (stage === 'idle') continue;
  busy += us;
  const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${frame.lineNumber + 1}`;
  functions.set(name, (functions.get(name) ?? 0) + us);
}

const orders = ordersText ? Number(ordersText) : null;
const total = [...stages.values()].reduce((a, b) => a + b, 0);
const line = (label: string, us: number) =>
  `${label.padEnd(84)} ${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / busy).toFixed(1).padStart(5)} %` +
  (orders ? ` ${(us / orders).toFixed(1).padStart(7)} µs/order` : '');
process.stdout.write(`profile: ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s\n\n`);
for (const [stage, us] of [...stages].sort((a, b) => b[1] - a[1]))
  if (stage !== 'idle') process.stdout.write(`${line(stage, us)}\n`);
process.stdout.write('\nbusiest functions (self time):\n');
for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 30))
  process.stdout.write(`${line(name.slice(0, 84), us)}\n`);

import { readFileSync } from 'node:fs';

/**
 * What PostgreSQL spent on a benchmark run's statements, from the plans auto_explain wrote to its log
 * (BENCH_EXPLAIN=1, see bench/harness.ts): per kind of statement, how many ran, their total and mean time, and the
 * time spent in each trigger they fired (foreign-key checks show as "RI_ConstraintTrigger" constraints).
 *
 *   npx tsx bench/plans.ts <postgresql log> <database name> [orders]
 */

interface Kind {
  calls: number;
  ms: number;
  triggers: Map<string, { ms: number; calls: number }>;
}

const [logFile, database, ordersText] = process.argv.slice(2);
if (!logFile || !database)
  throw new Error('usage: tsx bench/plans.ts <postgresql log> <database name> [orders]');
const orders = ordersText ? Number(ordersText) : null;

const kinds = new Map<string, Kind>();
const lines = readFileSync(logFile, 'utf8').split('\n');
for (let i = 0; i < lines.length; i++) {
  const head = /@(\S+) LOG: {2}duration: ([\d.]+) ms {2}plan:/.exec(lines[i] as string);
  if (!head || head[1] !== database) continue;
  const text: string[] = [];
  const triggers: [string, number, number][] = [];
  let j = i + 1;
  for (; j < lines.length && /^\t|^\s{2,}/.test(lines[j] as string); j++) {
    const line = (lines[j] as string).trim();
    const trigger = /^Trigger (?:for constraint )?(.+?): time=([\d.]+) calls=(\d+)/.exec(line);
    if (trigger) triggers.push([trigger[1] as string, Number(trigger[2]), Number(trigger[3])]);
    if (line.startsWith('Query Text:')) text.push(line.slice('Query Text:'.length));
    else if (
      text.length > 0 &&
      text.length < 4 &&
      !/^(Insert|Update|Delete|Result|Seq|Index|Nested|Hash|Sort|CTE|Limit|Aggregate|Buffers|Planning|Execution|Trigger|->)/.test(
        line,
      )
    )
      text.push(line);
  }
  i = j - 1;
  const name = text.join(' ').replace(/\$\d+/g, '?').replace(/\s+/g, ' ').trim().slice(0, 110);
  const kind = kinds.get(name) ?? { calls: 0, ms: 0, triggers: new Map() };
  kind.calls += 1;
  kind.ms += Number(head[2]);
  for (const [trigger, ms, calls] of triggers) {
    const t = kind.triggers.get(trigger) ?? { ms: 0, calls: 0 };
    t.ms += ms;
    t.calls += calls;
    kind.triggers.set(trigger, t);
  }
  kinds.set(name, kind);
}

const total = [...kinds.values()].reduce((sum, kind) => sum + kind.ms, 0);
const perOrder = (ms: number) => (orders ? ` ${((ms * 1000) / orders).toFixed(1).padStart(7)} µs/order` : '');
process.stdout.write(
  `${database}: ${[...kinds.values()].reduce((s, k) => s + k.calls, 0)} statements, ${total.toFixed(0)} ms\n\n`,
);
for (const [name, kind] of [...kinds].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) {
  process.stdout.write(
    `${kind.ms.toFixed(0).padStart(8)} ms ${String(kind.calls).padStart(7)}× ${(kind.ms / kind.calls).toFixed(2).padStart(7)} ms${perOrder(kind.ms)}  ${name}\n`,
  );
  for (const [trigger, t] of [...kind.triggers].sort((a, b) => b[1].ms - a[1].ms))
    process.stdout.write(
      `${''.padStart(36)}trigger ${trigger}: ${t.ms.toFixed(0)} ms, ${t.calls} calls${perOrder(t.ms)}\n`,
    );
}

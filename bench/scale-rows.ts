import type { OrderLoad } from './http.js';
import type { ReadRun } from './reads.js';
import type { Measured, ScaleResult } from './scale.js';

/** The rows the suite prints for the scale case: each figure of the busy year beside the empty database's. */
interface Row {
  name: string;
  figure: string;
  target: string;
  met: boolean | null;
}

interface ScaleTargets {
  scaleRatio: number;
  scaleReadP99Ms: number;
  scaleStartupMs: number;
}

const n = (x: number) => x.toLocaleString('en');
/** How many times slower the busy year is: the empty database's rate over the busy one's. */
const slower = (empty: number, busy: number) => Math.round((empty / Math.max(1, busy)) * 100) / 100;
const mib = (bytes: number) => `${n(Math.round(bytes / 1024 / 1024))} MB`;

function readRow(name: string, busy: Measured<ReadRun>, empty: Measured<ReadRun>, t: ScaleTargets): Row {
  const ratio = slower(empty.run.requestsPerSecond, busy.run.requestsPerSecond);
  const errors = busy.run.errors + empty.run.errors;
  return {
    name: `s. ${name}: req/s busy / empty (×), p50 / p99 busy | empty, load`,
    figure:
      `${n(busy.run.requestsPerSecond)} / ${n(empty.run.requestsPerSecond)} (${ratio}×), ` +
      `${busy.run.p50Ms} / ${busy.run.p99Ms} | ${empty.run.p50Ms} / ${empty.run.p99Ms} ms` +
      `${errors ? `, ${n(errors)} ERRORS` : ''}, ${busy.load} | ${empty.load}`,
    target: `≤ ${t.scaleRatio}×, p99 < ${t.scaleReadP99Ms} ms`,
    met: ratio <= t.scaleRatio && busy.run.p99Ms < t.scaleReadP99Ms && errors === 0,
  };
}

function orderRow(name: string, busy: Measured<OrderLoad>, empty: Measured<OrderLoad>, t: ScaleTargets): Row {
  const ratio = slower(empty.run.ordersPerSecond, busy.run.ordersPerSecond);
  const errors = busy.run.errors + empty.run.errors;
  return {
    name: `s. ${name}: orders/s busy / empty (×), p50 / p99 busy | empty, load`,
    figure:
      `${n(busy.run.ordersPerSecond)} / ${n(empty.run.ordersPerSecond)} (${ratio}×), ` +
      `${busy.run.p50Ms} / ${busy.run.p99Ms} | ${empty.run.p50Ms} / ${empty.run.p99Ms} ms` +
      `${errors ? `, ${n(errors)} refused` : ''}, ${busy.load} | ${empty.load}`,
    target: `≤ ${t.scaleRatio}×`,
    met: ratio <= t.scaleRatio && errors === 0,
  };
}

export function scaleRows(s: ScaleResult, t: ScaleTargets): Row[] {
  const year = s.year;
  const rows: Row[] = [
    {
      name: `s. busy year at scale ${s.scale}: users, events, options, orders, fills (×2 trades), feed items`,
      figure: year
        ? `${[year.users, year.events, year.options, year.orders, year.fills, year.notifications].map(n).join(', ')}`
        : 'not filled',
      target: '',
      met: null,
    },
    {
      name: 's. the fill: time, database size',
      figure: `${n(s.fillSeconds)} s, ${mib(s.databaseBytes)}`,
      target: '',
      met: null,
    },
  ];
  for (const [name, busy] of Object.entries(s.busy.reads)) {
    const empty = s.empty.reads[name];
    if (empty) rows.push(readRow(name, busy, empty, t));
  }
  rows.push(orderRow('a. single limit orders, 64 in flight', s.busy.single, s.empty.single, t));
  rows.push(orderRow('g. batches of 20, 16 in flight', s.busy.batch, s.empty.batch, t));
  rows.push({
    name: 's. start-up to ready, busy / empty (its CPU)',
    figure: `${n(s.busy.startupMs)} / ${n(s.empty.startupMs)} ms (${s.busy.startupCpuSeconds} / ${s.empty.startupCpuSeconds} s)`,
    target: `< ${n(t.scaleStartupMs)} ms`,
    met: s.busy.startupMs < t.scaleStartupMs,
  });
  rows.push({
    name: 's. npm run audit, busy / empty (load)',
    figure: `${n(s.busy.audit.ms)} / ${n(s.empty.audit.ms)} ms, ${s.busy.audit.clean && s.empty.audit.clean ? 'clean' : 'FAILED'} (${s.busy.audit.load} | ${s.empty.audit.load})`,
    target: 'clean, its time stated',
    met: s.busy.audit.clean && s.empty.audit.clean,
  });
  const top = s.sizes.slice(0, 12);
  for (const [table, bytes, count] of top)
    rows.push({
      name: `s. size of ${table} with its indexes (rows)`,
      figure: `${mib(bytes)} (${n(count)})`,
      target: '',
      met: null,
    });
  return rows;
}

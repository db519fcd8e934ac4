import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { type CsvColumn, csvStream } from './csv.js';
import type {
  ConversionExportRow,
  SettlementExportRow,
  TradeExportRepository,
  TradeExportRow,
} from './repository.js';

/** Rows fetched per database round trip while streaming. */
const PAGE_SIZE = 500;

/** One line of the export: a trade, one leg of a conversion, or one settled position. */
interface ExportLine {
  record: 'trade' | 'conversion' | 'settlement';
  recordId: number;
  at: Date;
  event: string;
  eventTitle: string;
  option: string;
  side: string;
  action: string;
  quantity: number;
  priceCents: number | '';
  feeCents: number;
  notionalCents: number | '';
  liquidity: string;
  orderId: string;
  orderKind: string;
  outcome: string;
  /** Cash the line moved for you (negative: paid); a conversion's cash is on its first leg. */
  cashCents: number | '';
  pnlCents: number | '';
}

const COLUMNS: CsvColumn<ExportLine>[] = [
  { header: 'tradeId', value: (l) => (l.record === 'trade' ? String(l.recordId) : '') },
  { header: 'createdAt', value: (l) => l.at.toISOString() },
  { header: 'event', value: (l) => l.event },
  { header: 'eventTitle', value: (l) => l.eventTitle },
  { header: 'option', value: (l) => l.option },
  { header: 'side', value: (l) => l.side },
  { header: 'action', value: (l) => l.action },
  { header: 'quantity', value: (l) => l.quantity },
  { header: 'priceCents', value: (l) => l.priceCents },
  { header: 'feeCents', value: (l) => l.feeCents },
  { header: 'notionalCents', value: (l) => l.notionalCents },
  { header: 'liquidity', value: (l) => l.liquidity },
  { header: 'orderId', value: (l) => l.orderId },
  { header: 'orderKind', value: (l) => l.orderKind },
  { header: 'record', value: (l) => l.record },
  { header: 'recordId', value: (l) => String(l.recordId) },
  { header: 'outcome', value: (l) => l.outcome },
  { header: 'cashCents', value: (l) => l.cashCents },
  { header: 'pnlCents', value: (l) => l.pnlCents },
];

export const TRADE_EXPORT_COLUMNS = COLUMNS.map((column) => column.header);

/**
 * The caller's complete history as CSV: trades, conversions (a line per leg) and settlements, oldest first, read
 * from the database page by page as it streams.
 */
export class TradeExportService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly trades: TradeExportRepository,
  ) {}

  exportCsv(userId: number): Readable {
    return csvStream(
      byTime([
        this.paged((after) => this.trades.page(this.db, userId, after, PAGE_SIZE), tradeLines),
        this.paged((after) => this.trades.conversions(this.db, userId, after, PAGE_SIZE), conversionLines),
        this.paged((after) => this.trades.settlements(this.db, userId, after, PAGE_SIZE), settlementLines),
      ]),
      COLUMNS,
    );
  }

  private async *paged<Row extends { id: number }>(
    page: (afterId: number) => Promise<Row[]>,
    lines: (row: Row) => ExportLine[],
  ): AsyncGenerator<ExportLine> {
    let afterId = 0;
    for (;;) {
      const rows = await page(afterId);
      for (const row of rows) yield* lines(row);
      const last = rows[rows.length - 1];
      if (rows.length < PAGE_SIZE || last === undefined) return;
      afterId = last.id;
    }
  }
}

/** Merges streams each in time order into one in time order (a tie keeps the order of the streams). */
async function* byTime(sources: AsyncGenerator<ExportLine>[]): AsyncGenerator<ExportLine> {
  const heads = await Promise.all(sources.map((source) => source.next()));
  for (;;) {
    let first = -1;
    heads.forEach((head, index) => {
      const best = heads[first];
      if (!head.done && (best === undefined || best.done || head.value.at < best.value.at)) first = index;
    });
    const head = heads[first];
    if (head === undefined || head.done) return;
    yield head.value;
    heads[first] = await (sources[first] as AsyncGenerator<ExportLine>).next();
  }
}

function tradeLines(t: TradeExportRow): ExportLine[] {
  const notional = t.quantity * t.price_cents;
  return [
    {
      record: 'trade',
      recordId: t.id,
      at: t.created_at,
      event: t.slug,
      eventTitle: t.title,
      option: t.label,
      side: t.side,
      action: t.action,
      quantity: t.quantity,
      priceCents: t.price_cents,
      feeCents: t.fee_cents,
      notionalCents: notional,
      liquidity: t.liquidity,
      orderId: String(t.order_id),
      orderKind: t.order_kind,
      outcome: '',
      cashCents: t.action === 'BUY' ? -(notional + t.fee_cents) : notional - t.fee_cents,
      pnlCents: '',
    },
  ];
}

function conversionLines(c: ConversionExportRow): ExportLine[] {
  return c.legs.map((leg, index) => ({
    record: 'conversion',
    recordId: c.id,
    at: c.created_at,
    event: c.slug,
    eventTitle: c.title,
    option: c.labels[String(leg.optionId)] ?? '',
    side: leg.side,
    action: leg.quantity > 0 ? 'BUY' : 'SELL',
    quantity: Math.abs(leg.quantity),
    priceCents: leg.priceCents,
    feeCents: 0,
    notionalCents: Math.abs(leg.quantity) * leg.priceCents,
    liquidity: '',
    orderId: '',
    orderKind: c.kind,
    outcome: '',
    cashCents: index === 0 ? c.cash_cents : '',
    pnlCents: '',
  }));
}

function settlementLines(s: SettlementExportRow): ExportLine[] {
  return [
    {
      record: 'settlement',
      recordId: s.id,
      at: s.created_at,
      event: s.slug,
      eventTitle: s.title,
      option: s.label,
      side: s.side,
      action: '',
      quantity: s.quantity,
      priceCents: '',
      feeCents: 0,
      notionalCents: '',
      liquidity: '',
      orderId: '',
      orderKind: '',
      outcome: s.outcome,
      cashCents: s.payout_cents,
      pnlCents: s.pnl_cents,
    },
  ];
}

import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { type CsvColumn, csvStream } from './csv.js';
import type { TradeExportRepository, TradeExportRow } from './repository.js';

/** Rows fetched per database round trip while streaming. */
const PAGE_SIZE = 500;

const COLUMNS: CsvColumn<TradeExportRow>[] = [
  { header: 'tradeId', value: (t) => String(t.id) },
  { header: 'createdAt', value: (t) => t.created_at.toISOString() },
  { header: 'event', value: (t) => t.slug },
  { header: 'eventTitle', value: (t) => t.title },
  { header: 'option', value: (t) => t.label },
  { header: 'side', value: (t) => t.side },
  { header: 'action', value: (t) => t.action },
  { header: 'quantity', value: (t) => t.quantity },
  { header: 'priceCents', value: (t) => t.price_cents },
  { header: 'feeCents', value: (t) => t.fee_cents },
  { header: 'notionalCents', value: (t) => t.quantity * t.price_cents },
  { header: 'liquidity', value: (t) => t.liquidity },
  { header: 'orderId', value: (t) => String(t.order_id) },
  { header: 'orderKind', value: (t) => t.order_kind },
];

export const TRADE_EXPORT_COLUMNS = COLUMNS.map((column) => column.header);

/** The caller's complete trade history as CSV, read from the database page by page as it streams. */
export class TradeExportService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly trades: TradeExportRepository,
  ) {}

  exportCsv(userId: number): Readable {
    return csvStream(this.rows(userId), COLUMNS);
  }

  private async *rows(userId: number): AsyncGenerator<TradeExportRow> {
    let afterId = 0;
    for (;;) {
      const page = await this.trades.page(this.db, userId, afterId, PAGE_SIZE);
      yield* page;
      const last = page[page.length - 1];
      if (page.length < PAGE_SIZE || last === undefined) return;
      afterId = last.id;
    }
  }
}

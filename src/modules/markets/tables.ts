import type { ColumnType } from 'kysely';

export type TradingStatusText = 'trading' | 'post_only' | 'maintenance';

type ChangedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export interface ExchangeTradingStatusTable {
  singleton: ColumnType<boolean, boolean | undefined, never>;
  status: TradingStatusText;
  message: string | null;
  updated_by: number | null;
  updated_at: ChangedAt;
}

export interface EventTradingStatusTable {
  event_id: number;
  status: Exclude<TradingStatusText, 'trading'>;
  message: string | null;
  updated_by: number | null;
  updated_at: ChangedAt;
}

export interface MarketTables {
  exchange_trading_status: ExchangeTradingStatusTable;
  event_trading_status: EventTradingStatusTable;
}

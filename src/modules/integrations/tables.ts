import type { ColumnType } from 'kysely';
import type { CreatedAt, Id } from '../../platform/db/columns.js';

type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export interface EventNewsSourcesTable {
  event_id: number;
  feed_urls: ColumnType<string[], string | undefined, string>;
  search_query: string | null;
  updated_at: UpdatedAt;
}

export interface EventNewsItemsTable {
  id: Id;
  event_id: number;
  title: string;
  url: string;
  source: string;
  published_at: ColumnType<Date, Date | string | undefined, Date | string>;
  created_by: number | null;
  created_at: CreatedAt;
}

export interface NewsSummariesTable {
  items_hash: string;
  summary: string;
  model: string;
  created_at: CreatedAt;
}

export interface EventSponsorsTable {
  event_id: number;
  name: string;
  logo_url: string;
  link_url: string;
  disclosure: string;
  updated_at: UpdatedAt;
}

export interface CricketMatchLinksTable {
  event_id: number;
  match_id: string;
  created_at: CreatedAt;
}

export interface IntegrationTables {
  event_news_sources: EventNewsSourcesTable;
  event_news_items: EventNewsItemsTable;
  news_summaries: NewsSummariesTable;
  event_sponsors: EventSponsorsTable;
  cricket_match_links: CricketMatchLinksTable;
}

import { sql } from 'kysely';
import type { Queryable } from '../../../platform/db/types.js';

export interface NewNewsItem {
  eventId: number;
  title: string;
  url: string;
  source: string;
  publishedAt: Date | null;
  createdBy: number;
}

export class NewsRepository {
  sources(db: Queryable, eventId: number) {
    return db.selectFrom('event_news_sources').selectAll().where('event_id', '=', eventId).executeTakeFirst();
  }

  saveSources(db: Queryable, eventId: number, feedUrls: string[], searchQuery: string | null) {
    const values = { feed_urls: JSON.stringify(feedUrls), search_query: searchQuery };
    return db
      .insertInto('event_news_sources')
      .values({ event_id: eventId, ...values })
      .onConflict((oc) => oc.column('event_id').doUpdateSet({ ...values, updated_at: sql<Date>`now()` }))
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  items(db: Queryable, eventId: number) {
    return db
      .selectFrom('event_news_items')
      .selectAll()
      .where('event_id', '=', eventId)
      .orderBy('published_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  async countItems(db: Queryable, eventId: number): Promise<number> {
    const row = await db
      .selectFrom('event_news_items')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('event_id', '=', eventId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Undefined when the event already has an item with this URL. */
  insertItem(db: Queryable, item: NewNewsItem) {
    return db
      .insertInto('event_news_items')
      .values({
        event_id: item.eventId,
        title: item.title,
        url: item.url,
        source: item.source,
        created_by: item.createdBy,
        ...(item.publishedAt ? { published_at: item.publishedAt } : {}),
      })
      .onConflict((oc) => oc.columns(['event_id', 'url']).doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  async deleteItem(db: Queryable, eventId: number, itemId: number): Promise<boolean> {
    const result = await db
      .deleteFrom('event_news_items')
      .where('event_id', '=', eventId)
      .where('id', '=', itemId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  summary(db: Queryable, itemsHash: string) {
    return db.selectFrom('news_summaries').selectAll().where('items_hash', '=', itemsHash).executeTakeFirst();
  }

  async saveSummary(db: Queryable, itemsHash: string, summary: string, model: string): Promise<void> {
    await db
      .insertInto('news_summaries')
      .values({ items_hash: itemsHash, summary, model })
      .onConflict((oc) => oc.column('items_hash').doNothing())
      .execute();
  }
}

export type NewsItemRow = Awaited<ReturnType<NewsRepository['items']>>[number];
export type NewsSourcesRow = NonNullable<Awaited<ReturnType<NewsRepository['sources']>>>;

import type { Database } from '../../src/platform/db/database.js';

export interface TestEvent {
  id: number;
  slug: string;
  options: { id: number; label: string }[];
}

let counter = 0;

/**
 * Inserts an open event with options straight into the database, for tests of areas that only need a
 * market to exist. Trading tests create markets through the admin API instead.
 */
export async function insertEvent(
  database: Database,
  fields: {
    slug?: string;
    title?: string;
    category?: string;
    status?: 'draft' | 'open' | 'closed';
    options?: string[];
  } = {},
): Promise<TestEvent> {
  counter += 1;
  const slug = fields.slug ?? `test-event-${counter}-${Date.now().toString(36)}`;
  return database.db.transaction().execute(async (trx) => {
    const event = await trx
      .insertInto('events')
      .values({
        slug,
        title: fields.title ?? `Test event ${counter}`,
        description: 'An event made by a test',
        category: fields.category ?? 'cricket',
        status: fields.status ?? 'open',
        closes_at: new Date(Date.now() + 7 * 86_400_000),
        opened_at: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const options = [];
    for (const [index, label] of (fields.options ?? ['Yes']).entries()) {
      const option = await trx
        .insertInto('options')
        .values({ event_id: event.id, label, sort_order: index })
        .returning(['id', 'label'])
        .executeTakeFirstOrThrow();
      await trx.insertInto('ledger_accounts').values({ kind: 'escrow', option_id: option.id }).execute();
      options.push(option);
    }
    return { id: event.id, slug, options };
  });
}

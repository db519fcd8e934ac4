import { randomBytes } from 'node:crypto';
import { offsetsForChances } from '../../exchange/house.js';
import { offsetForPrice } from '../../exchange/lmsr.js';
import type { Tx } from '../../platform/db/types.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import type { LedgerRepository } from '../ledger/repository.js';
import { eventHouseOf } from '../trading/rows.js';
import type { MarketCatalogue } from './catalogue.js';
import type { CatalogueChanges } from './changes.js';
import { InvalidTransitionError, SlugTakenError } from './errors.js';
import type { EventPatch, EventRow, MarketsRepository, OptionRow } from './repository.js';
import { displayYesPrice, shownPrices } from './views.js';

export interface NewOptionInput {
  label: string;
  liquidityCents?: number | undefined;
  initialPriceCents?: number | undefined;
}

export interface NewEventInput {
  slug?: string | undefined;
  title: string;
  description?: string | undefined;
  category: string;
  featured?: boolean | undefined;
  resolutionSource?: string | undefined;
  closesAt: string;
  options: NewOptionInput[];
  open?: boolean | undefined;
  /** Exactly one option resolves YES; one house maker spans the options. */
  exclusive?: boolean | undefined;
  /** The house liquidity of an exclusive event (its one maker's b). */
  liquidityCents?: number | undefined;
}

/** Operators' edits of the catalogue: events and options created, and changed while they are drafts. */
export class MarketEditing {
  constructor(
    private readonly markets: MarketsRepository,
    private readonly ledger: LedgerRepository,
    private readonly changes: CatalogueChanges,
    private readonly catalogue: MarketCatalogue,
  ) {}

  async createEvent(input: NewEventInput) {
    const closesAt = new Date(input.closesAt);
    if (closesAt.getTime() <= Date.now()) {
      throw new ValidationError('closesAt must be in the future', [
        { field: 'body.closesAt', message: 'is in the past' },
      ]);
    }
    const labels = input.options.map((o) => o.label.trim().toLowerCase());
    if (new Set(labels).size !== labels.length) {
      throw new ValidationError('Option labels must be unique', [
        { field: 'body.options', message: 'has duplicate labels' },
      ]);
    }
    checkHouseLiquidity(input);
    const slug = input.slug ?? slugify(input.title);
    const event = await this.changes.run(async (trx, changed) => {
      if (await this.markets.slugTaken(trx, slug)) throw new SlugTakenError(slug);
      const event = await this.insertEventWithOptions(trx, {
        slug,
        title: input.title,
        description: input.description ?? '',
        category: input.category,
        featured: input.featured ?? false,
        resolutionSource: input.resolutionSource ?? null,
        closesAt,
        exclusive: input.exclusive ?? false,
        liquidityCents: input.liquidityCents ?? 0,
        options: input.options,
      });
      if (input.open) await this.markets.setEventStatus(trx, event.id, 'open', 'opened_at');
      changed(event.id);
      return event;
    });
    return this.catalogue.adminView(event.id);
  }

  /**
   * A draft event with plain options (no house liquidity), inside the caller's transaction: how an approved market
   * suggestion becomes a market. A given slug must be free; without one, the title's slug gets a suffix if taken.
   */
  async createDraftEvent(
    trx: Tx,
    input: {
      slug?: string | undefined;
      title: string;
      description: string;
      category: string;
      resolutionSource: string | null;
      closesAt: Date;
      optionLabels: string[];
    },
  ): Promise<{ id: number; slug: string }> {
    let slug = input.slug ?? slugify(input.title);
    if (await this.markets.slugTaken(trx, slug)) {
      if (input.slug !== undefined) throw new SlugTakenError(slug);
      const base = slug;
      do slug = `${base}-${randomBytes(3).toString('hex')}`;
      while (await this.markets.slugTaken(trx, slug));
    }
    const event = await this.insertEventWithOptions(trx, {
      ...input,
      slug,
      featured: false,
      exclusive: false,
      liquidityCents: 0,
      options: input.optionLabels.map((label) => ({ label })),
    });
    return { id: event.id, slug };
  }

  /**
   * The event row, its options and one escrow account per option (and the conversion pool's account of an exclusive
   * event). An independent option's house maker opens at its own starting price; an exclusive event's one maker at
   * the options' starting prices taken as shares of 100 % (even odds when none is given).
   */
  private async insertEventWithOptions(
    trx: Tx,
    input: Parameters<MarketsRepository['insertEvent']>[1] & { options: NewOptionInput[] },
  ): Promise<EventRow> {
    const event = await this.markets.insertEvent(trx, { ...input, category: input.category.toLowerCase() });
    const offsets = input.exclusive
      ? offsetsForChances(
          input.liquidityCents,
          input.options.map((o) => o.initialPriceCents ?? 1),
        )
      : input.options.map((o) => offsetForPrice(o.liquidityCents ?? 0, o.initialPriceCents ?? 50));
    for (const [index, option] of input.options.entries()) {
      const row = await this.markets.insertOption(trx, event.id, {
        label: option.label.trim(),
        sortOrder: index,
        liquidityCents: input.exclusive ? 0 : (option.liquidityCents ?? 0),
        ammOffset: offsets[index] ?? 0,
      });
      await this.ledger.openEscrowAccount(trx, row.id);
    }
    if (input.exclusive) await this.ledger.openConversionAccount(trx, event.id);
    return event;
  }

  /**
   * Edits an event. Whether it is exclusive, and an exclusive event's house liquidity, may change only while it is a
   * draft; its house maker then keeps the chances it opens at.
   */
  async updateEvent(id: number, patch: EventPatch) {
    await this.changes.run(async (trx, changed) => {
      const event = await this.lockEvent(trx, id);
      if (event.status !== 'draft' && event.status !== 'open')
        throw new InvalidTransitionError('edit', event.status);
      const kindChanges = patch.exclusive !== undefined || patch.liquidityCents !== undefined;
      if (kindChanges && event.status !== 'draft')
        throw new InvalidTransitionError('change the kind or the house liquidity of', event.status);
      if (patch.closesAt && patch.closesAt.getTime() <= Date.now()) {
        throw new ValidationError('closesAt must be in the future', [
          { field: 'body.closesAt', message: 'is in the past' },
        ]);
      }
      const house = kindChanges ? await this.reshapeHouse(trx, event, patch) : {};
      await this.markets.updateEvent(trx, id, { ...patch, ...house });
      changed(id);
    });
    return this.catalogue.adminView(id);
  }

  /** A draft's house maker after a change of kind or liquidity, opening at the chances the draft shows now. */
  private async reshapeHouse(
    trx: Tx,
    event: EventRow,
    patch: EventPatch,
  ): Promise<{ exclusive: boolean; liquidityCents: number }> {
    const exclusive = patch.exclusive ?? event.exclusive;
    const options = await this.markets.optionsOf(trx, [event.id]);
    if (exclusive && options.length < 2) {
      throw new ValidationError('An exclusive event needs at least two options', [
        { field: 'body.exclusive', message: 'needs at least two options' },
      ]);
    }
    if (!exclusive && patch.liquidityCents !== undefined && patch.liquidityCents > 0) {
      throw new ValidationError('House liquidity on the event is for exclusive events; set it per option', [
        { field: 'body.liquidityCents', message: 'is for exclusive events' },
      ]);
    }
    const shown = shownPrices(event, options);
    const liquidityCents = exclusive ? (patch.liquidityCents ?? event.liquidity_b) : 0;
    const offsets = exclusive
      ? offsetsForChances(
          liquidityCents,
          options.map((o) => shown.get(o.id)?.probabilityBps ?? 1),
        )
      : options.map(() => 0);
    await this.markets.setOptionMakers(
      trx,
      options.map((option, index) => ({
        optionId: option.id,
        liquidityCents: exclusive ? 0 : option.liquidity_b,
        ammOffset: exclusive
          ? (offsets[index] ?? 0)
          : offsetForPrice(option.liquidity_b, displayYesPrice(option)),
      })),
    );
    if (exclusive) await this.ledger.openConversionAccount(trx, event.id);
    return { exclusive, liquidityCents };
  }

  /**
   * Edits an option of a draft (nothing can have traded it yet): its label, its house liquidity and the house
   * maker's starting price (kept where it is unless given). In an exclusive event the liquidity is the event's, and
   * a starting price sets that option's chance, the others sharing the rest as before. 409 INVALID_TRANSITION once
   * the event has opened.
   */
  async updateDraftOption(
    eventId: number,
    optionId: number,
    patch: {
      label?: string | undefined;
      liquidityCents?: number | undefined;
      initialPriceCents?: number | undefined;
    },
  ) {
    await this.changes.run(async (trx, changed) => {
      const event = await this.lockEvent(trx, eventId);
      if (event.status !== 'draft') throw new InvalidTransitionError('edit the options of', event.status);
      const options = await this.markets.optionsOf(trx, [eventId]);
      const option = options.find((o) => o.id === optionId);
      if (!option) throw new NotFoundError('Option');
      if (event.exclusive && patch.liquidityCents !== undefined) {
        throw new ValidationError("An exclusive event's house liquidity is set on the event", [
          { field: 'body.liquidityCents', message: 'is set on the event (PATCH the event)' },
        ]);
      }
      const liquidityCents = patch.liquidityCents ?? option.liquidity_b;
      const ammOffset = event.exclusive
        ? exclusiveOffset(event, options, option, patch.initialPriceCents)
        : offsetForPrice(liquidityCents, patch.initialPriceCents ?? displayYesPrice(option));
      await this.markets.updateOption(trx, optionId, {
        label: patch.label?.trim() ?? option.label,
        liquidityCents,
        ammOffset,
      });
      changed(eventId);
    });
    return this.catalogue.adminView(eventId);
  }

  private async lockEvent(trx: Tx, id: number): Promise<EventRow> {
    const event = await this.markets.lockEvent(trx, id);
    if (!event) throw new NotFoundError('Event');
    return event;
  }
}

/** The offset that opens an exclusive draft's option at a YES price, the others keeping their proportions. */
function exclusiveOffset(
  event: EventRow,
  options: OptionRow[],
  option: OptionRow,
  priceCents: number | undefined,
): number {
  if (priceCents === undefined) return option.amm_offset;
  const house = eventHouseOf(
    event.liquidity_b,
    options.map((o) => ({ optionId: o.id, offset: o.amm_offset, yesShares: 0, noShares: 0 })),
  );
  return house ? house.offsetAt(option.id, priceCents) : 0;
}

/** Where the house liquidity of an event goes: on the event when exclusive, on each option otherwise. */
function checkHouseLiquidity(input: NewEventInput): void {
  if (!input.exclusive) {
    if (input.liquidityCents !== undefined && input.liquidityCents > 0) {
      throw new ValidationError(
        'House liquidity on the event is for exclusive events; give each option its own',
        [{ field: 'body.liquidityCents', message: 'is for exclusive events (set options[].liquidityCents)' }],
      );
    }
    return;
  }
  if (input.options.length < 2) {
    throw new ValidationError('An exclusive event needs at least two options', [
      { field: 'body.options', message: 'needs at least two options when exclusive' },
    ]);
  }
  const perOption = input.options.findIndex((o) => (o.liquidityCents ?? 0) > 0);
  if (perOption >= 0) {
    throw new ValidationError(
      "An exclusive event's options share one house maker: set liquidityCents on the event",
      [
        {
          field: `body.options.${perOption}.liquidityCents`,
          message: 'is set on the event when it is exclusive',
        },
      ],
    );
  }
  const priced = input.options.filter((o) => o.initialPriceCents !== undefined).length;
  if (priced !== 0 && priced !== input.options.length) {
    throw new ValidationError(
      'Give every option of an exclusive event a starting price, or none (even odds)',
      [{ field: 'body.options', message: 'starting prices are given for some options only' }],
    );
  }
}

export function slugify(title: string): string {
  const base = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return base || 'event';
}

import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { apiClient, idempotencyKey, typed } from '../api/client';
import type { Conversion, MarketDetail, Position } from '../api/types';
import { useAuth } from '../auth';
import { holdingsChanged } from '../lib/account-live';
import { type ConversionKind, conversionsOffered, listInWords, previewConversion } from '../lib/conversions';
import { describeConversionError } from '../lib/errors';
import { formatCredits, formatDate, formatNumber } from '../lib/format';
import { useAction, usePagedApi } from '../lib/hooks';
import { invalidate } from '../lib/query';
import { PagedList } from './Paged';
import { ErrorMessage } from './Status';

const KIND_LABELS: Record<ConversionKind, string> = {
  convert: 'Convert No',
  merge: 'Merge',
  split: 'Split',
};

interface Leg {
  optionLabel: string;
  side: 'YES' | 'NO';
  quantity: number;
}

/** Shares in words: "10 No India and 10 No Australia", or "10 Yes of every option" for a whole set. */
function sharesInWords(legs: Leg[], optionCount: number): string {
  const first = legs[0];
  const wholeSet =
    first !== undefined &&
    optionCount > 1 &&
    legs.length === optionCount &&
    legs.every((leg) => leg.side === first.side && leg.quantity === first.quantity);
  if (first && wholeSet)
    return `${formatNumber(Math.abs(first.quantity))} ${first.side === 'YES' ? 'Yes' : 'No'} of every option`;
  return listInWords(
    legs.map(
      (leg) =>
        `${formatNumber(Math.abs(leg.quantity))} ${leg.side === 'YES' ? 'Yes' : 'No'} ${leg.optionLabel}`,
    ),
  );
}

/** What a conversion gives and gets, in words, from its legs and cash (negative: paid). */
export function describeConversion(legs: Leg[], cashCents: number, optionCount: number) {
  const given = legs.filter((leg) => leg.quantity < 0);
  const got = legs.filter((leg) => leg.quantity > 0);
  const give = [
    ...(given.length > 0 ? [sharesInWords(given, optionCount)] : []),
    ...(cashCents < 0 ? [formatCredits(-cashCents)] : []),
  ];
  const get = [
    ...(got.length > 0 ? [sharesInWords(got, optionCount)] : []),
    ...(cashCents > 0 ? [formatCredits(cashCents)] : []),
  ];
  return { give: give.join(' and '), get: get.join(' and ') };
}

function postConversion(
  eventId: string,
  body: { type: ConversionKind; quantity: number; optionIds?: string[] },
): Promise<Conversion> {
  return typed(
    apiClient.POST('/api/events/{id}/conversions', {
      params: { path: { id: eventId }, header: { 'idempotency-key': idempotencyKey() } },
      body,
    }),
  );
}

/**
 * The conversion being drafted, from what the holder can use now: the kinds offered (No to convert, whole Yes
 * sets to merge, credits to split), the options whose No is given, the number of shares, and what is wrong with
 * it, if anything.
 */
function useConversionDraft(market: MarketDetail, positions: Position[], cashCents: number) {
  const [chosenKind, setKind] = useState<ConversionKind | null>(null);
  const [chosenGiven, setGiven] = useState<string[] | null>(null);
  const [typedQuantity, setTyped] = useState<{ kind: ConversionKind; value: string } | null>(null);
  const options = market.options;
  const { convertible, mergeable } = conversionsOffered(options, positions);
  const splittable = Math.floor(cashCents / 100);
  const offered: ConversionKind[] = [
    ...(convertible.length > 0 ? (['convert'] as const) : []),
    ...(mergeable > 0 ? (['merge'] as const) : []),
    ...(splittable > 0 ? (['split'] as const) : []),
  ];
  const kind = chosenKind && offered.includes(chosenKind) ? chosenKind : offered[0];
  // The options picked while they still have free No shares; at first (or once those are gone) the first that has.
  const given = (chosenGiven ?? []).filter((id) => convertible.some((o) => o.optionId === id));
  const unpicked = chosenGiven === null || (given.length === 0 && chosenGiven.length > 0);
  const givenIds = unpicked ? convertible.slice(0, 1).map((o) => o.optionId) : given;
  const givenFree = convertible.filter((o) => givenIds.includes(o.optionId)).map((o) => o.free);
  const max =
    kind === 'convert'
      ? givenFree.length
        ? Math.min(...givenFree)
        : 0
      : kind === 'merge'
        ? mergeable
        : splittable;
  const fallback = kind === 'split' ? Math.min(10, splittable) : max;
  const quantityText = kind && typedQuantity?.kind === kind ? typedQuantity.value : String(fallback);
  const quantity = Number(quantityText);
  const givenLabels = options.filter((o) => givenIds.includes(o.id)).map((o) => o.label);
  const problem = !(Number.isInteger(quantity) && quantity >= 1)
    ? 'Enter a whole number of shares, at least 1.'
    : kind === 'convert' && givenIds.length === 0
      ? 'Pick at least one option whose No shares you give.'
      : quantity <= max
        ? null
        : kind === 'convert'
          ? `You have ${formatNumber(max)} free No shares of ${givenIds.length > 1 ? 'each of those options' : givenLabels[0]}.`
          : kind === 'merge'
            ? `You have ${formatNumber(mergeable)} free Yes shares of every option.`
            : `A split of ${formatNumber(quantity)} costs ${formatCredits(quantity * 100)}, more than the ${formatCredits(cashCents)} you have available.`;
  return {
    offered,
    kind,
    convertible,
    holdsConvertible: convertible.length > 0 || mergeable > 0,
    givenIds,
    givenLabels,
    max,
    quantity,
    quantityText,
    problem,
    preview: previewConversion(kind ?? 'split', problem ? 0 : quantity, options, givenIds),
    setKind,
    setGiven,
    setQuantity: (value: string) => {
      if (kind) setTyped({ kind, value });
    },
    forgetQuantity: () => setTyped(null),
  };
}
type Draft = ReturnType<typeof useConversionDraft>;

/** The line that says what a conversion does, in a trader's words. */
function headline(draft: Draft, optionCount: number): string {
  const shares = formatNumber(draft.quantity);
  const cashCents = draft.preview.cashCents;
  if (draft.kind === 'split') return `Pay ${formatCredits(-cashCents)} for ${shares} Yes of every option`;
  if (draft.kind === 'merge') return `Turn ${shares} Yes of every option into ${formatCredits(cashCents)}`;
  const your = `Turn your ${shares} No ${listInWords(draft.givenLabels)}`;
  if (draft.givenIds.length === optionCount) return `${your} into ${formatCredits(cashCents)}`;
  const cash = cashCents > 0 ? ` and ${formatCredits(cashCents)}` : '';
  return `${your} into ${shares} Yes on every other option${cash}`;
}

/** The choice of a conversion: its kind, the No shares given, and how many. */
function ConversionInputs({ draft, ids, onEdit }: { draft: Draft; ids: string; onEdit: () => void }) {
  const edit =
    <A extends unknown[]>(change: (...args: A) => void) =>
    (...args: A) => {
      change(...args);
      onEdit();
    };
  return (
    <div>
      {draft.offered.length > 1 ? (
        <fieldset className="segmented">
          <legend>Conversion</legend>
          {draft.offered.map((value) => (
            <label key={value}>
              <input
                type="radio"
                name={`${ids}-kind`}
                value={value}
                checked={draft.kind === value}
                onChange={edit(() => draft.setKind(value))}
              />
              <span>{KIND_LABELS[value]}</span>
            </label>
          ))}
        </fieldset>
      ) : null}
      {draft.kind === 'convert' ? (
        <fieldset className="convert-options">
          <legend>Give the No shares of</legend>
          {draft.convertible.map((option) => (
            <label key={option.optionId} className="check">
              <input
                type="checkbox"
                checked={draft.givenIds.includes(option.optionId)}
                onChange={edit((event: { target: { checked: boolean } }) =>
                  draft.setGiven(
                    event.target.checked
                      ? [...draft.givenIds, option.optionId]
                      : draft.givenIds.filter((id) => id !== option.optionId),
                  ),
                )}
              />
              {option.label} <span className="muted small">({formatNumber(option.free)} No free)</span>
            </label>
          ))}
        </fieldset>
      ) : null}
      <div className="field">
        <label htmlFor={`${ids}-quantity`}>Shares of each option</label>
        <div className="inline-input">
          <input
            id={`${ids}-quantity`}
            type="number"
            inputMode="numeric"
            min={1}
            step={1}
            value={draft.quantityText}
            onChange={edit((event: { target: { value: string } }) => draft.setQuantity(event.target.value))}
          />
          {draft.max > 0 ? (
            <button
              type="button"
              className="link-button"
              onClick={edit(() => draft.setQuantity(String(draft.max)))}
            >
              Max {formatNumber(draft.max)}
            </button>
          ) : null}
        </div>
      </div>
    </div>
  );
}

/** What the drafted conversion would do, or what stands in its way. */
function ConversionPreview({
  draft,
  optionCount,
  cashCents,
}: {
  draft: Draft;
  optionCount: number;
  cashCents: number;
}) {
  if (draft.problem) {
    return (
      <p className="field-error" role="alert" data-testid="conversion-problem">
        {draft.problem}
      </p>
    );
  }
  const { give, get } = describeConversion(draft.preview.legs, draft.preview.cashCents, optionCount);
  return (
    <div aria-live="polite">
      <p className="conversion-headline" data-testid="conversion-headline">
        {headline(draft, optionCount)}.
      </p>
      <dl className="preview">
        <div className="stacked">
          <dt>You give</dt>
          <dd data-testid="conversion-give">{give}</dd>
        </div>
        <div className="stacked">
          <dt>You get</dt>
          <dd data-testid="conversion-get">{get}</dd>
        </div>
        <div>
          <dt>Available</dt>
          <dd>{formatCredits(cashCents)}</dd>
        </div>
      </dl>
    </div>
  );
}

/** The conversions made in this market, read only when asked for. */
function ConversionHistory({ eventSlug, optionCount }: { eventSlug: string; optionCount: number }) {
  const list = usePagedApi('/api/conversions', { params: { query: { eventSlug, limit: 20 } } });
  return (
    <PagedList list={list} empty="No conversions in this market yet.">
      {(items) => (
        <ul className="plain conversion-history" data-testid="conversion-history">
          {items.map((item) => {
            const { give, get } = describeConversion(item.legs, item.cashCents, optionCount);
            return (
              <li key={item.id}>
                <span className="muted small">{formatDate(item.createdAt)}</span>{' '}
                <strong>{KIND_LABELS[item.type]}</strong>: gave {give}, got {get}
              </li>
            );
          })}
        </ul>
      )}
    </PagedList>
  );
}

/**
 * The conversions of an exclusive event, offered only as far as the holder can use them: No shares to convert
 * (when some are held and free), a whole set of Yes shares to merge (when held), and a split (with at least a
 * credit). Each shows what it gives and gets before it is confirmed, and what it did after. Shares to convert or
 * merge open the panel; a split alone waits to be asked for.
 */
export function Conversions({ market, positions }: { market: MarketDetail; positions: Position[] }) {
  const { me } = useAuth();
  const ids = useId();
  const cashCents = me?.balance.cashCents ?? 0;
  const draft = useConversionDraft(market, positions, cashCents);
  const [reviewing, setReviewing] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [history, setHistory] = useState(false);
  const [open, setOpen] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const convert = useAction(async (body: Parameters<typeof postConversion>[1]) => {
    try {
      const done = await postConversion(market.id, body);
      const { give, get } = describeConversion(done.legs, done.cashCents, market.options.length);
      setResult(`Done: you gave ${give} and got ${get}.`);
      draft.forgetQuantity();
      invalidate('/api/conversions');
    } finally {
      holdingsChanged();
    }
  });
  const { holdsConvertible } = draft;
  useEffect(() => {
    if (holdsConvertible) setOpen(true);
  }, [holdsConvertible]);
  const { kind } = draft;
  if (!kind) return null;

  const edited = () => {
    setReviewing(false);
    setResult(null);
    convert.clearError();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.problem) return;
    setReviewing(true);
    requestAnimationFrame(() => confirmButton.current?.focus());
  };
  const send = () => {
    setReviewing(false);
    void convert.run({
      type: kind,
      quantity: draft.quantity,
      ...(kind === 'convert' ? { optionIds: draft.givenIds } : {}),
    });
  };
  const { give, get } = describeConversion(
    draft.preview.legs,
    draft.preview.cashCents,
    market.options.length,
  );

  return (
    <section className="card conversions" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Conversions</h2>
      <p className="muted small">
        One option wins, so a No share of an option pays what a Yes share of every other option pays together,
        and a Yes share of every option pays 100¢. Converting between them costs nothing.
      </p>
      {open ? (
        <form onSubmit={submit} noValidate className="conversion-body">
          <ConversionInputs draft={draft} ids={ids} onEdit={edited} />
          <div>
            <ConversionPreview draft={draft} optionCount={market.options.length} cashCents={cashCents} />
            {reviewing && !draft.problem ? (
              <section className="review" aria-labelledby={`${ids}-review`}>
                <h3 id={`${ids}-review`}>Review the conversion</h3>
                <p data-testid="conversion-review">
                  You give {give} and get {get}. It cannot be undone, though another conversion can turn it
                  back.
                </p>
                <div className="actions">
                  <button
                    ref={confirmButton}
                    type="button"
                    className="button"
                    onClick={send}
                    disabled={convert.pending}
                  >
                    Confirm {KIND_LABELS[kind].toLowerCase()}
                  </button>
                  <button type="button" className="link-button" onClick={() => setReviewing(false)}>
                    Change it
                  </button>
                </div>
              </section>
            ) : (
              <button
                type="submit"
                className="button block"
                disabled={Boolean(draft.problem) || convert.pending}
              >
                {convert.pending ? 'Converting…' : `${KIND_LABELS[kind]}…`}
              </button>
            )}
            {convert.error ? (
              <ErrorMessage error={convert.error} describe={describeConversionError} />
            ) : result ? (
              <p className="success" role="status" data-testid="conversion-result">
                {result}
              </p>
            ) : null}
          </div>
        </form>
      ) : (
        <button
          type="button"
          className="button small ghost"
          aria-expanded="false"
          onClick={() => setOpen(true)}
        >
          Split credits into a Yes of every option
        </button>
      )}
      {open ? (
        <button
          type="button"
          className="link-button small"
          aria-expanded={history}
          onClick={() => setHistory(!history)}
        >
          {history ? 'Hide your conversions here' : 'Show your conversions here'}
        </button>
      ) : null}
      {open && history ? (
        <ConversionHistory eventSlug={market.slug} optionCount={market.options.length} />
      ) : null}
    </section>
  );
}

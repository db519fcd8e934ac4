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

/** The line that says what a conversion does, in a trader's words. */
function headline(
  kind: ConversionKind,
  quantity: number,
  givenLabels: string[],
  otherCount: number,
  cashCents: number,
): string {
  const shares = formatNumber(quantity);
  if (kind === 'split') return `Pay ${formatCredits(-cashCents)} for ${shares} Yes of every option`;
  if (kind === 'merge') return `Turn ${shares} Yes of every option into ${formatCredits(cashCents)}`;
  const your = `Turn your ${shares} No ${listInWords(givenLabels)}`;
  if (otherCount === 0) return `${your} into ${formatCredits(cashCents)}`;
  const cash = cashCents > 0 ? ` and ${formatCredits(cashCents)}` : '';
  return `${your} into ${shares} Yes on every other option${cash}`;
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
 * credit). Each shows what it gives and gets before it is confirmed, and what it did after.
 */
export function Conversions({ market, positions }: { market: MarketDetail; positions: Position[] }) {
  const { me } = useAuth();
  const ids = useId();
  const [chosenKind, setKind] = useState<ConversionKind | null>(null);
  const [chosenGiven, setGiven] = useState<string[] | null>(null);
  const [typedQuantity, setTyped] = useState<{ kind: ConversionKind; value: string } | null>(null);
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
      setTyped(null);
      invalidate('/api/conversions');
    } finally {
      holdingsChanged();
    }
  });
  const { clearError } = convert;

  const options = market.options;
  const { convertible, mergeable } = conversionsOffered(options, positions);
  // Shares to convert or merge open the panel (and it stays open); a split alone waits to be asked for.
  const holdsConvertible = convertible.length > 0 || mergeable > 0;
  useEffect(() => {
    if (holdsConvertible) setOpen(true);
  }, [holdsConvertible]);
  const cash = me?.balance.cashCents ?? 0;
  const splittable = Math.floor(cash / 100);
  const offered: ConversionKind[] = [
    ...(convertible.length > 0 ? (['convert'] as const) : []),
    ...(mergeable > 0 ? (['merge'] as const) : []),
    ...(splittable > 0 ? (['split'] as const) : []),
  ];
  const kind = chosenKind && offered.includes(chosenKind) ? chosenKind : offered[0];
  if (!kind) return null;

  // The options picked, as long as they still have free No shares; at first (or once all of those are gone), the
  // first option that has some.
  const given = (chosenGiven ?? []).filter((id) => convertible.some((o) => o.optionId === id));
  const unpicked = chosenGiven === null || (given.length === 0 && chosenGiven.length > 0);
  const givenIds = unpicked ? convertible.slice(0, 1).map((o) => o.optionId) : given;
  const max =
    kind === 'convert'
      ? Math.min(...convertible.filter((o) => givenIds.includes(o.optionId)).map((o) => o.free))
      : kind === 'merge'
        ? mergeable
        : splittable;
  const shownMax = Number.isFinite(max) ? max : 0;
  const fallback = kind === 'split' ? Math.min(10, splittable) : shownMax;
  const quantityText = typedQuantity?.kind === kind ? typedQuantity.value : String(fallback);
  const quantity = Number(quantityText);
  const validQuantity = Number.isInteger(quantity) && quantity >= 1;
  const preview = previewConversion(kind, validQuantity ? quantity : 0, options, givenIds);
  const givenLabels = options.filter((o) => givenIds.includes(o.id)).map((o) => o.label);
  const problem = !validQuantity
    ? 'Enter a whole number of shares, at least 1.'
    : kind === 'convert' && givenIds.length === 0
      ? 'Pick at least one option whose No shares you give.'
      : quantity > shownMax
        ? kind === 'convert'
          ? `You have ${formatNumber(shownMax)} free No shares of ${givenIds.length > 1 ? 'each of those options' : givenLabels[0]}.`
          : kind === 'merge'
            ? `You have ${formatNumber(mergeable)} free Yes shares of every option.`
            : `A split of ${formatNumber(quantity)} costs ${formatCredits(quantity * 100)}, more than the ${formatCredits(cash)} you have available.`
        : null;
  const { give, get } = describeConversion(preview.legs, preview.cashCents, options.length);
  const otherCount = options.length - givenIds.length;

  const edited = () => {
    setReviewing(false);
    setResult(null);
    clearError();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (problem) return;
    setReviewing(true);
    requestAnimationFrame(() => confirmButton.current?.focus());
  };
  const send = () => {
    setReviewing(false);
    void convert.run({
      type: kind,
      quantity,
      ...(kind === 'convert' ? { optionIds: givenIds } : {}),
    });
  };

  return (
    <section className="card conversions" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Conversions</h2>
      <p className="muted small">
        One option wins, so a No share of an option pays what a Yes share of every other option pays together,
        and a Yes share of every option pays 100¢. Converting between them costs nothing.
      </p>
      {open ? null : (
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
        <>
          <form onSubmit={submit} noValidate>
            {offered.length > 1 ? (
              <fieldset className="segmented">
                <legend>Conversion</legend>
                {offered.map((value) => (
                  <label key={value}>
                    <input
                      type="radio"
                      name={`${ids}-kind`}
                      value={value}
                      checked={kind === value}
                      onChange={() => {
                        setKind(value);
                        edited();
                      }}
                    />
                    <span>{KIND_LABELS[value]}</span>
                  </label>
                ))}
              </fieldset>
            ) : null}
            {kind === 'convert' ? (
              <fieldset className="convert-options">
                <legend>Give the No shares of</legend>
                {convertible.map((option) => (
                  <label key={option.optionId} className="check">
                    <input
                      type="checkbox"
                      checked={givenIds.includes(option.optionId)}
                      onChange={(event) => {
                        setGiven(
                          event.target.checked
                            ? [...givenIds, option.optionId]
                            : givenIds.filter((id) => id !== option.optionId),
                        );
                        edited();
                      }}
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
                  value={quantityText}
                  onChange={(event) => {
                    setTyped({ kind, value: event.target.value });
                    edited();
                  }}
                />
                {shownMax > 0 ? (
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => {
                      setTyped({ kind, value: String(shownMax) });
                      edited();
                    }}
                  >
                    Max {formatNumber(shownMax)}
                  </button>
                ) : null}
              </div>
            </div>
            {problem ? (
              <p className="field-error" role="alert" data-testid="conversion-problem">
                {problem}
              </p>
            ) : (
              <div aria-live="polite">
                <p className="conversion-headline" data-testid="conversion-headline">
                  {headline(kind, quantity, givenLabels, otherCount, preview.cashCents)}.
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
                    <dd>{formatCredits(cash)}</dd>
                  </div>
                </dl>
              </div>
            )}
            {reviewing && !problem ? (
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
              <button type="submit" className="button block" disabled={Boolean(problem) || convert.pending}>
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
          </form>
          <button
            type="button"
            className="link-button small"
            aria-expanded={history}
            onClick={() => setHistory(!history)}
          >
            {history ? 'Hide your conversions here' : 'Show your conversions here'}
          </button>
          {history ? <ConversionHistory eventSlug={market.slug} optionCount={options.length} /> : null}
        </>
      ) : null}
    </section>
  );
}

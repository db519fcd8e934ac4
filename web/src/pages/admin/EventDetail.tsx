import { type FormEvent, useState } from 'react';
import { Link, useParams } from 'react-router';
import { apiClient, typed } from '../../api/client';
import type { Outcome } from '../../api/console-types';
import type { MarketDetail } from '../../api/types';
import { ConfirmButton } from '../../components/Confirm';
import { ErrorMessage, Loaded } from '../../components/Status';
import { formatChances, formatCredits, formatDate, formatPrice } from '../../lib/format';
import { useAction, useApi, useDocumentTitle } from '../../lib/hooks';
import { StatusPill } from './AdminLayout';
import { toCents } from './Events';
import { describeWinner, outcomesOfWinner, type Winner, WinnerPicker } from './Winner';

function localInput(iso: string): string {
  const date = new Date(iso);
  date.setMinutes(date.getMinutes() - date.getTimezoneOffset(), 0, 0);
  return date.toISOString().slice(0, 16);
}

function EditEventForm({ event, onSaved }: { event: MarketDetail; onSaved: (e: MarketDetail) => void }) {
  const [title, setTitle] = useState(event.title);
  const [category, setCategory] = useState(event.category);
  const [description, setDescription] = useState(event.description);
  const [closesAt, setClosesAt] = useState(localInput(event.closesAt));
  const [featured, setFeatured] = useState(event.featured);
  const [exclusive, setExclusive] = useState(event.exclusive);
  const [liquidity, setLiquidity] = useState(String((event.houseLiquidityCents ?? 0) / 100));
  const [saved, setSaved] = useState(false);
  const draft = event.status === 'draft';
  const save = useAction(async () => {
    // Whether exactly one option wins, and the one maker's liquidity, may change only while a draft.
    const kind = draft
      ? { exclusive, ...(exclusive ? { liquidityCents: toCents(liquidity || '0') } : {}) }
      : {};
    const next = await typed(
      apiClient.PATCH('/api/admin/events/{id}', {
        params: { path: { id: event.id } },
        body: {
          title,
          category,
          description,
          featured,
          closesAt: new Date(closesAt).toISOString(),
          ...kind,
        },
      }),
    );
    setSaved(true);
    onSaved(next);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    void save.run();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Edit event">
      <div className="field-row">
        <div className="field">
          <label htmlFor="edit-title">Title</label>
          <input id="edit-title" value={title} maxLength={200} onChange={(e) => setTitle(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="edit-category">Category</label>
          <input id="edit-category" value={category} onChange={(e) => setCategory(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="edit-closes">Closes at</label>
          <input
            id="edit-closes"
            type="datetime-local"
            value={closesAt}
            onChange={(e) => setClosesAt(e.target.value)}
          />
        </div>
      </div>
      <div className="field">
        <label htmlFor="edit-description">Description</label>
        <textarea
          id="edit-description"
          rows={2}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </div>
      <label className="check">
        <input type="checkbox" checked={featured} onChange={(e) => setFeatured(e.target.checked)} />
        Featured on the markets page
      </label>
      {draft ? (
        <>
          <label className="check">
            <input type="checkbox" checked={exclusive} onChange={(e) => setExclusive(e.target.checked)} />
            Exactly one option wins (one market: one house maker for every option, chances that add up to 100
            %)
          </label>
          {exclusive ? (
            <div className="field">
              <label htmlFor="edit-liquidity">
                House liquidity of the market (LMSR b, in credits; 0 = none)
              </label>
              <input
                id="edit-liquidity"
                inputMode="decimal"
                value={liquidity}
                onChange={(e) => setLiquidity(e.target.value)}
              />
            </div>
          ) : null}
        </>
      ) : null}
      <div>
        <button type="submit" className="button" disabled={save.pending}>
          Save changes
        </button>
      </div>
      {saved ? (
        <p className="success" role="status">
          Saved.
        </p>
      ) : null}
      <ErrorMessage error={save.error} />
    </form>
  );
}

/** A draft's option: its label, house liquidity and starting price, editable until the event opens. */
function DraftOption({
  event,
  option,
  onSaved,
}: {
  event: MarketDetail;
  option: MarketDetail['options'][number];
  onSaved: (e: MarketDetail) => void;
}) {
  const [label, setLabel] = useState(option.label);
  const [liquidity, setLiquidity] = useState(String(option.houseLiquidityCents / 100));
  const [price, setPrice] = useState(String(option.yesPriceCents));
  const save = useAction(async () =>
    onSaved(
      await typed(
        apiClient.PATCH('/api/admin/events/{id}/options/{optionId}', {
          params: { path: { id: event.id, optionId: option.id } },
          body: {
            label: label.trim(),
            // An exclusive event's options share the event's one maker: its liquidity is set on the event.
            ...(event.exclusive ? {} : { liquidityCents: toCents(liquidity) }),
            initialPriceCents: Number(price),
          },
        }),
      ),
    ),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  const id = `draft-option-${option.id}`;
  return (
    <form className="field-row" onSubmit={submit} aria-label={`Option ${option.label}`}>
      <div className="field">
        <label htmlFor={`${id}-label`}>Label</label>
        <input id={`${id}-label`} value={label} maxLength={120} onChange={(e) => setLabel(e.target.value)} />
      </div>
      {event.exclusive ? null : (
        <div className="field">
          <label htmlFor={`${id}-liquidity`}>House liquidity of {option.label} (credits)</label>
          <input
            id={`${id}-liquidity`}
            inputMode="decimal"
            value={liquidity}
            onChange={(e) => setLiquidity(e.target.value)}
          />
        </div>
      )}
      <div className="field">
        <label htmlFor={`${id}-price`}>
          {event.exclusive ? `Starting chance of ${option.label} (%)` : 'Starting YES price (¢)'}
        </label>
        <input
          id={`${id}-price`}
          inputMode="numeric"
          value={price}
          onChange={(e) => setPrice(e.target.value)}
        />
      </div>
      <button type="submit" className="button small" disabled={save.pending}>
        Save<span className="visually-hidden"> option {option.label}</span>
      </button>
      <ErrorMessage error={save.error} />
    </form>
  );
}

/** An exclusive event resolves with exactly one winner, or with every option VOID: the only results it takes. */
function ResolveWinnerForm({ event, onDone }: { event: MarketDetail; onDone: (e: MarketDetail) => void }) {
  const [winner, setWinner] = useState<Winner | null>(null);
  return (
    <div className="stack">
      <WinnerPicker
        name={`winner-${event.id}`}
        legend="Resolve: the one winner (exactly one option wins)"
        options={event.options}
        winner={winner}
        onWinner={setWinner}
      />
      <ConfirmButton
        label="Resolve"
        title="Resolve this event?"
        disabled={winner === null}
        describe={() => (
          <p>
            {winner === null ? '' : describeWinner(event.options, winner)} Trading stops; holders may dispute
            during the dispute window, then the event settles.
          </p>
        )}
        onConfirm={async () => {
          if (winner === null) return;
          onDone(
            await typed(
              apiClient.POST('/api/admin/events/{id}/resolve', {
                params: { path: { id: event.id } },
                body: { outcomes: outcomesOfWinner(event.options, winner) },
              }),
            ),
          );
        }}
      />
    </div>
  );
}

function ResolveForm({ event, onDone }: { event: MarketDetail; onDone: (e: MarketDetail) => void }) {
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  const chosen = event.options.flatMap((option) => {
    const outcome = outcomes[option.id];
    return outcome ? [{ optionId: option.id, outcome }] : [];
  });
  const complete = chosen.length === event.options.length;
  return (
    <fieldset>
      <legend>Resolve: an outcome for every option</legend>
      {event.options.map((option) => (
        <div className="field inline" key={option.id}>
          <label htmlFor={`outcome-${option.id}`}>Outcome of {option.label}</label>
          <select
            id={`outcome-${option.id}`}
            value={outcomes[option.id] ?? ''}
            onChange={(e) => setOutcomes({ ...outcomes, [option.id]: e.target.value as Outcome })}
          >
            <option value="">choose…</option>
            <option value="YES">YES</option>
            <option value="NO">NO</option>
            <option value="VOID">VOID (refund 50 a share)</option>
          </select>
        </div>
      ))}
      <ConfirmButton
        label="Resolve"
        title="Resolve this event?"
        disabled={!complete}
        describe={() => (
          <p>
            {event.options.map((option) => `${option.label}: ${outcomes[option.id]}`).join(', ')}. Trading
            stops; holders may dispute during the dispute window, then the event settles.
          </p>
        )}
        onConfirm={async () =>
          onDone(
            await typed(
              apiClient.POST('/api/admin/events/{id}/resolve', {
                params: { path: { id: event.id } },
                body: { outcomes: chosen },
              }),
            ),
          )
        }
      />
    </fieldset>
  );
}

function SettleAction({ event, onDone }: { event: MarketDetail; onDone: (e: MarketDetail) => void }) {
  const preview = useApi('/api/admin/events/{id}/settlement-preview', { params: { path: { id: event.id } } });
  return (
    <Loaded data={preview.data} error={preview.error} reload={preview.reload}>
      {(p) => (
        <div>
          <p data-testid="settlement-preview">
            Settling pays <strong>{formatCredits(p.payoutCents)}</strong> to <strong>{p.holders}</strong>{' '}
            {p.holders === 1 ? 'holder' : 'holders'} (and {formatCredits(p.housePayoutCents)} to the house
            maker).
          </p>
          {p.disputePending ? (
            <p className="notice">A dispute is pending: decide it before settling.</p>
          ) : null}
          <ConfirmButton
            label="Settle now"
            title="Settle this event now?"
            disabled={p.disputePending}
            describe={() => (
              <>
                <p>
                  This pays {formatCredits(p.payoutCents)} to {p.holders}{' '}
                  {p.holders === 1 ? 'holder' : 'holders'} and ends the dispute window. It cannot be undone.
                </p>
                <ul>
                  {p.options.map((o) => (
                    <li key={o.optionId}>
                      {o.label} ({o.outcome}): {formatCredits(o.payoutCents)} to {o.holders}
                    </li>
                  ))}
                </ul>
              </>
            )}
            onConfirm={async () =>
              onDone(
                await typed(
                  apiClient.POST('/api/admin/events/{id}/settle', { params: { path: { id: event.id } } }),
                ),
              )
            }
          />
        </div>
      )}
    </Loaded>
  );
}

function moveEvent(id: string, step: 'open' | 'close'): Promise<MarketDetail> {
  const params = { path: { id } };
  return step === 'open'
    ? typed(apiClient.POST('/api/admin/events/{id}/open', { params }))
    : typed(apiClient.POST('/api/admin/events/{id}/close', { params }));
}

function Lifecycle({ event, onDone }: { event: MarketDetail; onDone: (e: MarketDetail) => void }) {
  const transition = (step: 'open' | 'close') => async () => onDone(await moveEvent(event.id, step));
  return (
    <section className="card" aria-labelledby="lifecycle-heading">
      <h2 id="lifecycle-heading">Lifecycle</h2>
      <div className="actions">
        {event.status === 'draft' ? (
          <ConfirmButton
            label="Open for trading"
            title="Open this event?"
            danger={false}
            describe={() => <p>Everyone can trade it from now on; a draft cannot be made again.</p>}
            onConfirm={transition('open')}
          />
        ) : null}
        {event.status === 'open' ? (
          <ConfirmButton
            label="Close trading"
            title="Close trading?"
            describe={() => (
              <p>
                No new orders; every open order is cancelled and its reservation released. It cannot reopen.
              </p>
            )}
            onConfirm={transition('close')}
          />
        ) : null}
      </div>
      {(event.status === 'open' || event.status === 'closed') && event.exclusive ? (
        <ResolveWinnerForm event={event} onDone={onDone} />
      ) : event.status === 'open' || event.status === 'closed' ? (
        <ResolveForm event={event} onDone={onDone} />
      ) : null}
      {event.status === 'resolved' ? <SettleAction event={event} onDone={onDone} /> : null}
      {event.status === 'settled' ? (
        <p>Settled {formatDate(event.settledAt)}: every holder has been paid.</p>
      ) : null}
    </section>
  );
}

export function AdminEventPage() {
  const { id = '' } = useParams();
  const event = useApi('/api/admin/events/{id}', { params: { path: { id } } });
  useDocumentTitle(event.data ? `Console · ${event.data.title}` : 'Console');
  const replace = (next: MarketDetail) => event.setData(() => next);
  return (
    <Loaded data={event.data} error={event.error} reload={event.reload}>
      {(e) => (
        <>
          <section className="card" aria-labelledby="event-heading">
            <div className="section-head">
              <h2 id="event-heading">{e.title}</h2>
              <StatusPill status={e.status} />
            </div>
            <p className="muted">
              {e.status === 'draft' ? `/${e.slug}` : <Link to={`/markets/${e.slug}`}>Market page</Link>} ·
              closes {formatDate(e.closesAt)}
              {e.disputeWindowEndsAt ? ` · dispute window ends ${formatDate(e.disputeWindowEndsAt)}` : ''}
            </p>
            {e.exclusive ? (
              <p data-testid="event-kind">
                <span className="tag">One winner</span> Exactly one option resolves YES. One house maker
                quotes every option, with a liquidity of {formatCredits(e.houseLiquidityCents ?? 0)}; its
                chances add up to 100 %.
              </p>
            ) : null}
            <div className="table-wrap">
              <table className="data" aria-label="Options">
                <thead>
                  <tr>
                    <th scope="col">Option</th>
                    <th scope="col">{e.exclusive ? 'Chance' : 'YES price'}</th>
                    <th scope="col">Volume</th>
                    {e.exclusive ? null : <th scope="col">House liquidity</th>}
                    <th scope="col">Outcome</th>
                  </tr>
                </thead>
                <tbody>
                  {e.options.map((option, index) => (
                    <tr key={option.id}>
                      <td>{option.label}</td>
                      <td>
                        {e.exclusive
                          ? formatChances(e.options.map((o) => o.probabilityBps))[index]
                          : formatPrice(option.yesPriceCents)}
                      </td>
                      <td>{formatCredits(option.volumeCents)}</td>
                      {e.exclusive ? null : <td>{formatCredits(option.houseLiquidityCents)}</td>}
                      <td>{option.resolution ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {e.status === 'draft' ? (
              <fieldset className="option-rows">
                <legend>
                  {e.exclusive
                    ? 'Options and their starting chances, taken as shares of 100 % (editable until the event opens)'
                    : 'Options and house liquidity (editable until the event opens)'}
                </legend>
                {e.options.map((option) => (
                  <DraftOption
                    // A starting chance saved in an exclusive draft moves the others': their rows start afresh.
                    key={e.exclusive ? `${option.id}:${option.yesPriceCents}` : option.id}
                    event={e}
                    option={option}
                    onSaved={replace}
                  />
                ))}
              </fieldset>
            ) : null}
            {e.status === 'draft' || e.status === 'open' ? (
              <EditEventForm event={e} onSaved={replace} />
            ) : null}
          </section>
          <Lifecycle event={e} onDone={replace} />
        </>
      )}
    </Loaded>
  );
}

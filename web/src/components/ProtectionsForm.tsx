import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { apiClient, typed } from '../api/client';
import type { Position } from '../api/types';
import { formatNumber } from '../lib/format';
import { useAction } from '../lib/hooks';
import { ErrorMessage } from './Status';

function toBps(value: string): number | null {
  return value.trim() === '' ? null : Math.round(Number(value) * 100);
}

/** A position's stop-loss and take-profit as typed (prices in cents), and their saving. */
function useProtectionsForm(position: Position, onSaved: () => void) {
  const [stop, setStop] = useState(
    position.stopLossProbBps === null ? '' : String(position.stopLossProbBps / 100),
  );
  const [take, setTake] = useState(
    position.takeProfitProbBps === null ? '' : String(position.takeProfitProbBps / 100),
  );
  const save = useAction(async () => {
    await typed(
      apiClient.POST('/api/positions/{id}/protections', {
        params: { path: { id: position.id } },
        body: { stopLossProbBps: toBps(stop), takeProfitProbBps: toBps(take) },
      }),
    );
    onSaved();
  });
  return {
    stop,
    setStop,
    take,
    setTake,
    pending: save.pending,
    error: save.error,
    submit: (event: FormEvent) => {
      event.preventDefault();
      void save.run();
    },
  };
}

/** Which position the protections are for, and what they do. */
function ProtectionsIntro({ position }: { position: Position }) {
  return (
    <>
      <h3>
        Stop-loss and take-profit: {formatNumber(position.quantity)} {position.side === 'YES' ? 'Yes' : 'No'}{' '}
        · {position.optionLabel}
      </h3>
      <p className="muted small">
        Sell this position at market when the {position.side === 'YES' ? 'Yes' : 'No'} price (now{' '}
        {position.markPriceCents ?? '—'}¢) falls to the stop-loss or rises to the take-profit. Leave a box
        empty to clear it.
      </p>
    </>
  );
}

/** Stop-loss and take-profit on one position, as prices of its side in cents (sent as basis points). */
export function ProtectionsForm({
  position,
  onSaved,
  onCancel,
}: {
  position: Position;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const id = useId();
  const form = useProtectionsForm(position, onSaved);
  return (
    <form
      id="protections-form"
      className="protections card inset"
      onSubmit={form.submit}
      aria-label={`Protections for ${position.optionLabel}`}
    >
      <ProtectionsIntro position={position} />
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${id}-stop`}>Stop-loss (¢)</label>
          <input
            ref={first}
            id={`${id}-stop`}
            type="number"
            min={1}
            max={99}
            step={1}
            value={form.stop}
            onChange={(e) => form.setStop(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-take`}>Take-profit (¢)</label>
          <input
            id={`${id}-take`}
            type="number"
            min={1}
            max={99}
            step={1}
            value={form.take}
            onChange={(e) => form.setTake(e.target.value)}
          />
        </div>
      </div>
      <div className="actions">
        <button type="submit" className="button small" disabled={form.pending}>
          Save
        </button>
        <button type="button" className="link-button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorMessage error={form.error} />
    </form>
  );
}

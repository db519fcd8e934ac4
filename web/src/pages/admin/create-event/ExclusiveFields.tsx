import type { EventDraft } from './event-draft';

/** Whether exactly one option wins, and then the liquidity of the one house maker quoting every option. */
export function ExclusiveFields({
  draft,
  onChange,
}: {
  draft: EventDraft;
  onChange: (change: Partial<EventDraft>) => void;
}) {
  return (
    <>
      <label className="check">
        <input
          type="checkbox"
          checked={draft.exclusive}
          onChange={(e) => onChange({ exclusive: e.target.checked })}
        />
        Exactly one option wins (“who wins?”: one market, one house maker quoting every option, chances that
        add up to 100 %, shares that convert)
      </label>
      {draft.exclusive ? (
        <div className="field">
          <label htmlFor="event-liquidity">
            House liquidity of the market (LMSR b, in credits; 0 = none): one maker quotes every option
          </label>
          <input
            id="event-liquidity"
            inputMode="decimal"
            value={draft.marketLiquidity}
            onChange={(e) => onChange({ marketLiquidity: e.target.value })}
          />
        </div>
      ) : null}
    </>
  );
}

import type { EditEventFormState } from './useEditEventForm';

/** While a draft: whether exactly one option wins, and then the one maker's liquidity. */
export function DraftKindFields({ form }: { form: EditEventFormState }) {
  const { fields, set } = form;
  return (
    <>
      <label className="check">
        <input
          type="checkbox"
          checked={fields.exclusive}
          onChange={(e) => set.setExclusive(e.target.checked)}
        />
        Exactly one option wins (one market: one house maker for every option, chances that add up to 100 %)
      </label>
      {fields.exclusive ? (
        <div className="field">
          <label htmlFor="edit-liquidity">House liquidity of the market (LMSR b, in credits; 0 = none)</label>
          <input
            id="edit-liquidity"
            inputMode="decimal"
            value={fields.liquidity}
            onChange={(e) => set.setLiquidity(e.target.value)}
          />
        </div>
      ) : null}
    </>
  );
}

import { chancesGiven, chanceTotal } from './event-draft';
import { OptionRow } from './OptionRow';
import type { CreateEventForm } from './useCreateEventForm';

/** The new event's options, added and removed here, and a note when the starting chances miss 100 %. */
export function OptionRows({ form }: { form: CreateEventForm }) {
  const { options, exclusive } = form.draft;
  const total = chanceTotal(options);
  return (
    <fieldset className="option-rows">
      <legend>
        {exclusive
          ? 'Options, each with its starting chance in percent (taken as shares of 100 %; none for even odds)'
          : 'Options, each with the house market maker’s liquidity (LMSR b, in credits; 0 = none)'}
      </legend>
      {options.map((option, index) => (
        <OptionRow
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place and never reordered
          key={index}
          index={index}
          option={option}
          exclusive={exclusive}
          removable={options.length > 1}
          onChange={(change) => form.setOption(index, change)}
          onRemove={() => form.removeOption(index)}
        />
      ))}
      <button type="button" className="button small ghost" onClick={form.addOption}>
        Add an option
      </button>
      {exclusive && chancesGiven(options) && total !== 100 ? (
        <p className="muted small">
          The starting chances add up to {total} %: each is taken as its share of 100 %.
        </p>
      ) : null}
    </fieldset>
  );
}

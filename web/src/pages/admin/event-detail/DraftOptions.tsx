import type { MarketDetail } from '../../../api/types';
import { DraftOption } from './DraftOption';

/** A draft's options, each editable until the event opens. */
export function DraftOptions({
  event,
  onSaved,
}: {
  event: MarketDetail;
  onSaved: (e: MarketDetail) => void;
}) {
  return (
    <fieldset className="option-rows">
      <legend>
        {event.exclusive
          ? 'Options and their starting chances, taken as shares of 100 % (editable until the event opens)'
          : 'Options and house liquidity (editable until the event opens)'}
      </legend>
      {event.options.map((option) => (
        <DraftOption
          // A starting chance saved in an exclusive draft moves the others': their rows start afresh.
          key={event.exclusive ? `${option.id}:${option.yesPriceCents}` : option.id}
          event={event}
          option={option}
          onSaved={onSaved}
        />
      ))}
    </fieldset>
  );
}

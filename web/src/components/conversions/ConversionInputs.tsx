import type { ConversionKind } from '../../lib/conversions';
import { SegmentedChoice } from '../SegmentedChoice';
import { ConversionQuantity } from './ConversionQuantity';
import { KIND_LABELS } from './conversion-words';
import { GivenOptions } from './GivenOptions';
import type { ConversionDraft } from './useConversionDraft';

/** The choice of a conversion: its kind, the No shares given, and how many. */
export function ConversionInputs({
  draft,
  ids,
  onEdit,
}: {
  draft: ConversionDraft;
  ids: string;
  onEdit: () => void;
}) {
  const edit =
    <A extends unknown[]>(change: (...args: A) => void) =>
    (...args: A) => {
      change(...args);
      onEdit();
    };
  return (
    <div>
      {draft.offered.length > 1 ? (
        <SegmentedChoice<ConversionKind>
          legend="Conversion"
          name={`${ids}-kind`}
          choices={draft.offered.map((value) => ({ value, label: KIND_LABELS[value] }))}
          value={draft.kind}
          onChoose={edit(draft.setKind)}
        />
      ) : null}
      {draft.kind === 'convert' ? (
        <GivenOptions
          convertible={draft.convertible}
          givenIds={draft.givenIds}
          onGiven={edit(draft.setGiven)}
        />
      ) : null}
      <ConversionQuantity
        id={`${ids}-quantity`}
        quantity={draft.quantityText}
        max={draft.max}
        onQuantity={edit(draft.setQuantity)}
      />
    </div>
  );
}

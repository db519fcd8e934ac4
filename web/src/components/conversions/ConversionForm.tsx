import type { ConversionKind } from '../../lib/conversions';
import { describeConversionError } from '../../lib/errors';
import { ErrorMessage } from '../Status';
import { ConversionInputs } from './ConversionInputs';
import { ConversionPreview } from './ConversionPreview';
import { ConversionReview } from './ConversionReview';
import { describeConversion, KIND_LABELS } from './conversion-words';
import type { ConversionPanel } from './useConversionPanel';

/** The conversion's choice beside what it would do, its review or button, and what it did. */
export function ConversionForm({
  ids,
  kind,
  panel,
  optionCount,
}: {
  ids: string;
  kind: ConversionKind;
  panel: ConversionPanel;
  optionCount: number;
}) {
  const { draft } = panel;
  const { give, get } = describeConversion(draft.preview.legs, draft.preview.cashCents, optionCount);
  return (
    <form onSubmit={panel.submit} noValidate className="conversion-body">
      <ConversionInputs draft={draft} ids={ids} onEdit={panel.edited} />
      <div>
        <ConversionPreview draft={draft} optionCount={optionCount} cashCents={panel.cashCents} />
        {panel.reviewing && !draft.problem ? (
          <ConversionReview
            id={`${ids}-review`}
            give={give}
            get={get}
            kindLabel={KIND_LABELS[kind]}
            confirmButton={panel.confirmButton}
            pending={panel.pending}
            onConfirm={panel.send}
            onChange={panel.cancelReview}
          />
        ) : (
          <button type="submit" className="button block" disabled={Boolean(draft.problem) || panel.pending}>
            {panel.pending ? 'Converting…' : `${KIND_LABELS[kind]}…`}
          </button>
        )}
        {panel.error ? (
          <ErrorMessage error={panel.error} describe={describeConversionError} />
        ) : panel.result ? (
          <p className="success" role="status" data-testid="conversion-result">
            {panel.result}
          </p>
        ) : null}
      </div>
    </form>
  );
}

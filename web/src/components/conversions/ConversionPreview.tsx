import { formatCredits } from '../../lib/format';
import { describeConversion, headline } from './conversion-words';
import type { ConversionDraft } from './useConversionDraft';

/** What the drafted conversion would do, or what stands in its way. */
export function ConversionPreview({
  draft,
  optionCount,
  cashCents,
}: {
  draft: ConversionDraft;
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
        {headline({ ...draft, cashCents: draft.preview.cashCents }, optionCount)}.
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

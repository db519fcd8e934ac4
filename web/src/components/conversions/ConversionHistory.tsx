import { formatDate } from '../../lib/format';
import { usePagedApi } from '../../lib/hooks';
import { PagedList } from '../Paged';
import { describeConversion, KIND_LABELS } from './conversion-words';

/** The conversions made in this market, read only when asked for. */
export function ConversionHistory({ eventSlug, optionCount }: { eventSlug: string; optionCount: number }) {
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

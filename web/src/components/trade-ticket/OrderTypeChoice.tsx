import { type Choice, SegmentedChoice } from '../SegmentedChoice';
import type { Kind } from './order-draft';

const KINDS: Choice<Kind>[] = [
  { value: 'market', label: 'Market' },
  { value: 'limit', label: 'Limit' },
];

export function OrderTypeChoice({ kind, onChoose }: { kind: Kind; onChoose: (kind: Kind) => void }) {
  return <SegmentedChoice legend="Order type" name="kind" choices={KINDS} value={kind} onChoose={onChoose} />;
}

import type { Action } from '../../api/types';
import { type Choice, SegmentedChoice } from '../SegmentedChoice';

const DIRECTIONS: Choice<Action>[] = [
  { value: 'BUY', label: 'Buy' },
  { value: 'SELL', label: 'Sell' },
];

export function DirectionChoice({
  action,
  onChoose,
}: {
  action: Action;
  onChoose: (action: Action) => void;
}) {
  return (
    <SegmentedChoice
      legend="Direction"
      name="action"
      choices={DIRECTIONS}
      value={action}
      onChoose={onChoose}
    />
  );
}

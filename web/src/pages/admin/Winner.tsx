import type { Outcome } from '../../api/console-types';
import type { MarketDetail } from '../../api/types';

/** An exclusive event's result as an operator picks it: one winning option, or none (every option VOID). */
export type Winner = string | 'VOID';

type Options = MarketDetail['options'];

/** The outcomes the API takes for a winner: that option YES and every other NO, or every option VOID. */
export function outcomesOfWinner(options: Options, winner: Winner): { optionId: string; outcome: Outcome }[] {
  return options.map((option) => ({
    optionId: option.id,
    outcome: winner === 'VOID' ? 'VOID' : option.id === winner ? 'YES' : 'NO',
  }));
}

/** The winner an exclusive event's resolution names now, if it has one. */
export function currentWinner(options: Options): Winner | null {
  if (options.length > 0 && options.every((option) => option.resolution === 'VOID')) return 'VOID';
  return options.find((option) => option.resolution === 'YES')?.id ?? null;
}

/** The winner in words, for a confirmation. */
export function describeWinner(options: Options, winner: Winner): string {
  if (winner === 'VOID') return 'No winner: every option VOID, every share of either side pays 50¢.';
  const won = options.find((option) => option.id === winner);
  const lost = options.filter((option) => option.id !== winner).map((option) => option.label);
  return `${won?.label} wins: ${won?.label} YES, and NO for ${lost.join(', ')}.`;
}

/**
 * The choice of an exclusive event's result, as the API accepts it: exactly one option wins, or every option is
 * VOID (a tie, an abandoned match).
 */
export function WinnerPicker({
  name,
  legend,
  options,
  winner,
  onWinner,
}: {
  name: string;
  legend: string;
  options: Options;
  winner: Winner | null;
  onWinner: (winner: Winner) => void;
}) {
  return (
    <fieldset className="winner-picker">
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.id} className="check">
          <input
            type="radio"
            name={name}
            value={option.id}
            checked={winner === option.id}
            onChange={() => onWinner(option.id)}
          />
          {option.label} wins
        </label>
      ))}
      <label className="check">
        <input
          type="radio"
          name={name}
          value="VOID"
          checked={winner === 'VOID'}
          onChange={() => onWinner('VOID')}
        />
        No winner: VOID every option (a tie or no result; 50¢ a share)
      </label>
    </fieldset>
  );
}

import type { ReactNode } from 'react';

export interface Choice<T extends string> {
  value: T;
  label: ReactNode;
  /** A class for the choice's label, such as the colour of a side. */
  className?: string;
  testId?: string;
}

/** One choice among a few, as a row of radio buttons under a legend. */
export function SegmentedChoice<T extends string>({
  legend,
  name,
  className,
  choices,
  value,
  onChoose,
}: {
  legend: ReactNode;
  name: string;
  /** Classes added to `segmented`. */
  className?: string;
  choices: readonly Choice<T>[];
  value: T | undefined;
  onChoose: (value: T) => void;
}) {
  return (
    <fieldset className={className ? `segmented ${className}` : 'segmented'}>
      <legend>{legend}</legend>
      {choices.map((choice) => (
        <label key={choice.value} className={choice.className}>
          <input
            type="radio"
            name={name}
            value={choice.value}
            checked={value === choice.value}
            onChange={() => onChoose(choice.value)}
          />
          <span data-testid={choice.testId}>{choice.label}</span>
        </label>
      ))}
    </fieldset>
  );
}

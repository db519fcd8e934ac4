import { type KeyboardEvent, useRef, useState } from 'react';

const MOVES: Record<string, (row: number, last: number) => number> = {
  ArrowDown: (row, last) => Math.min(last, row + 1),
  ArrowUp: (row) => Math.max(0, row - 1),
  Home: () => 0,
  End: (_row, last) => last,
};

/**
 * The row actions of a table as one stop on the Tab key's path: only the active row's buttons are in it, the arrow
 * keys move up and down the rows (on the same action) and Home and End to the first and last, so the keyboard
 * reaches any order's actions in a few presses and leaves the table with one Tab.
 */
export function useRovingRows(rows: number) {
  const table = useRef<HTMLTableElement>(null);
  const [active, setActive] = useState(0);
  const current = Math.min(active, Math.max(0, rows - 1));
  const focusNow = (row: number, action: string) =>
    table.current?.querySelector<HTMLButtonElement>(`[data-row="${row}"] [data-action="${action}"]`)?.focus();
  // After the rows change (the next frame): unless the keyboard went somewhere else meanwhile (an order's fields
  // opened, another key), which it keeps.
  const focusAction = (row: number, action: string) => {
    const before = document.activeElement;
    requestAnimationFrame(() => {
      const now = document.activeElement;
      if (now === before || now === null || now === document.body) focusNow(row, action);
    });
  };
  return {
    table,
    tabIndexOf: (row: number) => (row === current ? 0 : -1),
    /** Keeps the keyboard on `action` of `row` (clamped to `rowsNow`, the rows after a change), if any is left. */
    focusAction: (row: number, action: string, rowsNow = rows) => {
      const kept = Math.min(row, rowsNow - 1);
      setActive(Math.max(0, kept));
      if (kept >= 0) focusAction(kept, action);
    },
    keyDown: (row: number, action: string) => (event: KeyboardEvent<HTMLButtonElement>) => {
      const move = MOVES[event.key];
      if (!move || rows === 0) return;
      event.preventDefault();
      const next = move(row, rows - 1);
      setActive(next);
      // The row is there already: at once, so that keys pressed in a quick run each move from where the last left.
      focusNow(next, action);
    },
    activate: (row: number) => setActive(row),
  };
}

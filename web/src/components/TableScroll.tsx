import type { ReactNode } from 'react';

/**
 * The box of a wide table: on a narrow screen it scrolls sideways (with a shadow on the side that has more), and
 * it takes keyboard focus so it can be scrolled without a mouse.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable from the keyboard
    <section className="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

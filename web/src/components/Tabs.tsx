import type { ReactNode } from 'react';

/**
 * Tabs over one panel: the chosen tab is the one in the keyboard's path, and the arrow keys move between them (the
 * ARIA tabs pattern).
 */
export function Tabs<T extends string>({
  id,
  label,
  tabs,
  value,
  onChange,
  children,
  className,
}: {
  /** Prefix of the tabs' and the panel's ids. */
  id: string;
  label: string;
  tabs: readonly { value: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
  children: ReactNode;
  className?: string;
}) {
  const tabId = (tab: T) => `${id}-tab-${tab}`;
  return (
    <>
      <div className="tabs" role="tablist" aria-label={label}>
        {tabs.map((tab, index) => (
          <button
            key={tab.value}
            type="button"
            role="tab"
            id={tabId(tab.value)}
            aria-selected={value === tab.value}
            aria-controls={`${id}-panel`}
            tabIndex={value === tab.value ? 0 : -1}
            onClick={() => onChange(tab.value)}
            onKeyDown={(event) => {
              const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
              if (!step) return;
              const next = tabs[(index + step + tabs.length) % tabs.length]!;
              onChange(next.value);
              document.getElementById(tabId(next.value))?.focus();
            }}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div id={`${id}-panel`} role="tabpanel" aria-labelledby={tabId(value)} className={className}>
        {children}
      </div>
    </>
  );
}

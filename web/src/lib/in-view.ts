import { useEffect, useRef, useState } from 'react';

/** How long a page takes to lay out its first reads before what is below the fold is known to be below it. */
const SETTLE_MS = 1000;

/**
 * True once the element has come within `margin` of the screen: what lies below the fold is read when a person
 * scrolls towards it, not with every page view. Stays true afterwards.
 */
export function useInView<T extends Element>(margin = '200px') {
  const ref = useRef<T>(null);
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (seen || !element) return;
    if (typeof IntersectionObserver !== 'function') {
      setSeen(true);
      return;
    }
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) setSeen(true);
      },
      { rootMargin: margin },
    );
    // Watched once the page has taken its shape: while its first reads load, everything looks near the top.
    const timer = setTimeout(() => observer.observe(element), SETTLE_MS);
    return () => {
      clearTimeout(timer);
      observer.disconnect();
    };
  }, [seen, margin]);
  return { ref, seen };
}

import { useMemo } from 'react';
import { useBookReadOnce, useLiveBooks, useStreamStatus } from '../../api/live';
import type { OptionDetail } from '../../api/types';

/**
 * The books of a tradable market's options, followed on the stream, and the selected option's book to show:
 * without the stream, the book is read once over REST (and again on request), and that read is what shows.
 */
export function useSelectedBook(
  eventSlug: string,
  options: OptionDetail[],
  selected: OptionDetail | undefined,
  tradable: boolean,
  onSnapshot: (optionId: string, lastYesPriceCents: number | null) => void,
) {
  const streamStatus = useStreamStatus();
  const bookOptions = useMemo(
    () => (tradable ? options.map((option) => ({ optionId: option.id, optionLabel: option.label })) : []),
    [tradable, options],
  );
  const books = useLiveBooks(eventSlug, bookOptions, onSnapshot);
  const liveBook = selected ? books.get(selected.id) : undefined;
  const down = streamStatus === 'down';
  const readBook = useBookReadOnce(selected?.id, tradable && down);
  const book = down ? (readBook.book ?? liveBook) : (liveBook ?? readBook.book);
  return { streamStatus, books, book, readBook };
}

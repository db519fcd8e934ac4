-- Search by the start of a word ("infl" finds "Inflation"): the words of the title and description as typed
-- (unstemmed, lower case), beside the stemmed `search`, so that a prefix longer than a word's stem still matches.
ALTER TABLE events ADD COLUMN search_words tsvector GENERATED ALWAYS AS (
  to_tsvector('simple', title || ' ' || description)
) STORED;
CREATE INDEX events_search_words_idx ON events USING gin (search_words);

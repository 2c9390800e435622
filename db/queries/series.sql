-- name: SeriesMinutesPrune :execrows
-- Minute buckets older than @keep are dropped: the hour buckets, kept
-- alongside from the same tallies, cover them.
DELETE FROM series_minutes WHERE minute < now() - @keep::interval;

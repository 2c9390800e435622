-- The queue browser's search, the same in every list it pages through: the
-- rows of the page's window (w) whose names start with @prefix, contain
-- @contains and match the regular expression @pattern, each when set.
WHERE (@prefix::text = '' OR starts_with(w.name, @prefix::text))
  AND (@contains::text = '' OR strpos(w.name, @contains::text) > 0)
  AND (@pattern::text = '' OR w.name ~ @pattern::text)

-- The claims (c) an admin's selection names: of @downloader, older than
-- @older_than, whose names start with @prefix and match @pattern, of site
-- @site, each when set. The count the panel shows first and the release
-- it asks to confirm select the same claims.
WHERE c.project_id = @project_id
  AND c.claim_count > 0 -- the condition of the claims indexes
  AND (@downloader::text = '' OR c.downloader = @downloader::text)
  AND c.claimed_at < now() - @older_than::interval
  AND (@prefix::text = '' OR starts_with(c.name, @prefix::text))
  AND (@pattern::text = '' OR c.name ~ @pattern::text)
  AND (@site::integer = 0 OR c.site = @site::integer)

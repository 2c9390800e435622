-- name: DownloadersTop :many
-- The first downloaders of a project by bytes, folded totals.
SELECT nick, items, bytes, version, last_seen FROM downloaders
WHERE project_id = @project_id
ORDER BY bytes DESC, nick
LIMIT @max;

-- name: DownloadersAll :many
-- Every downloader of a project, for the rankings kept in memory.
SELECT nick, items, bytes, version, first_seen, last_seen FROM downloaders
WHERE project_id = @project_id;

-- name: DownloaderGet :one
SELECT * FROM downloaders WHERE project_id = @project_id AND nick = @nick;

-- name: DownloadersByNick :many
-- A nick's totals on every project.
SELECT d.*, p.slug, p.title FROM downloaders d JOIN projects p ON p.id = d.project_id
WHERE d.nick = @nick
ORDER BY d.bytes DESC;

-- name: DownloadersNamed :many
SELECT nick, items, bytes, version, last_seen FROM downloaders
WHERE project_id = @project_id AND nick = ANY(@nicks::text[]);

-- name: DownloadersPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see stats.Store.Purge).
DELETE FROM downloaders WHERE downloaders.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM downloaders p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksDownloadersItems :one
-- The books: the downloaders' items, folded and not folded yet.
SELECT ((SELECT coalesce(sum(d.items), 0) FROM downloaders d WHERE d.project_id = @project_id)
      + (SELECT coalesce(sum(t.items), 0) FROM done_tallies t WHERE t.project_id = @project_id))::bigint AS items;

-- name: BooksDownloadersBytes :one
-- The books: the downloaders' bytes, folded and not folded yet, saturated
-- at the largest bigint like the totals.
SELECT LEAST((SELECT coalesce(sum(d.bytes), 0) FROM downloaders d WHERE d.project_id = @project_id)
           + (SELECT coalesce(sum(t.bytes), 0) FROM done_tallies t WHERE t.project_id = @project_id), 9223372036854775807)::bigint AS bytes;

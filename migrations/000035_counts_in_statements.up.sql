-- The sites' counts of items queued and out are kept by the statements
-- that move the items, as the counters are: each statement computes what
-- it changed from the rows it moved and updates the sites in the same
-- statement (see SitesCount in db/queries/counters.sql). Statement
-- triggers kept them before; a distributed PostgreSQL (Citus, tables
-- distributed by project) refuses triggers on its tables, and a function
-- that writes cannot be called from a statement routed to a worker.
DROP TRIGGER claims_sites_deleted ON claims;
DROP TRIGGER claims_sites_inserted ON claims;
DROP TRIGGER todo_sites_updated ON todo;
DROP TRIGGER todo_sites_deleted ON todo;
DROP TRIGGER todo_sites_inserted ON todo;
DROP FUNCTION claims_sites_deleted, claims_sites_inserted,
              todo_sites_updated, todo_sites_deleted, todo_sites_inserted, sites_counted, sites_count;

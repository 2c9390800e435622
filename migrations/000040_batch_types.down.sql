DROP FUNCTION todo_stretches(integer);
DROP TYPE site_take;
DROP TYPE done_request;

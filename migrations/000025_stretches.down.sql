DROP FUNCTION project_site(integer, integer);
DROP FUNCTION project_limited_types(integer);

DROP FUNCTION same_network(inet, inet);
ALTER TABLE todo DROP COLUMN last_ip;
ALTER TABLE claims DROP COLUMN last_ip;

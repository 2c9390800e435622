DROP TABLE sessions;
DROP TABLE project_admins;
DROP TABLE users;

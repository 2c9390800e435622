DROP TABLE volunteer_secrets;
DROP TABLE volunteer_days;
DROP TABLE volunteer_marks;

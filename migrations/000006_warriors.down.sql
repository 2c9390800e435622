DROP TABLE warriors;

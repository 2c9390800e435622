DROP TABLE dictionaries;

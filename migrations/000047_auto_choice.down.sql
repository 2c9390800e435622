DROP TABLE auto_choice;

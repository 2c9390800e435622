DROP TABLE claim_expiries;

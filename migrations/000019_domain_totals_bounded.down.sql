-- The domains summed in 'other' cannot be told apart again: nothing to undo.
SELECT 1;
